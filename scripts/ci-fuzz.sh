#!/usr/bin/env bash
# Usage: ci-fuzz.sh [SECONDS | --build-only]
# Runs every cargo-fuzz target of fuzz/ for SECONDS seconds each, side by
# side (default 60), seeded with fixtures/bad-input and the small fixtures;
# `--build-only` builds the targets and stops. It builds the targets the
# way cargo-fuzz does (libFuzzer with SanitizerCoverage instrumentation,
# debug assertions and overflow checks on) but with the
# stable toolchain and without installing cargo-fuzz: no address sanitizer,
# which safe Rust does not need to show a panic. A crash fails the script
# and leaves its input in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
build_only=false
seconds=60
case "${1:-}" in
    --build-only) build_only=true ;;
    "") ;;
    *) seconds="$1" ;;
esac
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_FUZZ:-$PWD/target}"
# An explicit --target keeps the instrumentation flags off build scripts and
# proc macros (they run on the host and are not linked with libFuzzer).
host="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --bins --quiet --target "$host"
if "$build_only"; then exit 0; fi
seeds="$(mktemp -d)"
cp ../fixtures/bad-input/*.swf ../fixtures/bad-input/*.cwf "$seeds"/
head -c 4000 ../fixtures/lublin-128-1000.swf > "$seeds/lublin-head.swf"
# The targets run side by side, each for its full SECONDS: a libFuzzer
# process is single-threaded, so on two cores this takes SECONDS, not three
# times it. Each one's log is printed after all have ended.
targets=(parse_line read simulate)
pids=()
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target"
    "$CARGO_TARGET_DIR/$host/release/$target" "corpus/$target" "$seeds" \
        -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" > "$seeds/$target.log" 2>&1 &
    pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
    target="${targets[$i]}"
    status=0
    wait "${pids[$i]}" || status=$?
    echo "--- fuzz target $target for ${seconds}s (exit status $status)"
    grep -E "^(stat::number_of_executed_units|stat::peak_rss|#[0-9]+ *DONE)|panicked|ERROR|SUMMARY|Test unit written" "$seeds/$target.log" || true
    if compgen -G "artifacts/$target/crash-*" > /dev/null || [ "$status" -ne 0 ]; then
        echo "fuzz target $target found a crash: fuzz/artifacts/$target/"
        failed=1
    fi
done
rm -rf "$seeds"
exit "$failed"
