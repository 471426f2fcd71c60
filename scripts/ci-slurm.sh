#!/usr/bin/env bash
# Runs a small sweep as a real Slurm job array on a one-node cluster started
# here, and checks that its merged results equal the same sweep run locally.
#
# Installs Debian's slurm-wlm and munge if missing (needs root and apt),
# starts munged, slurmctld and slurmd from scripts/slurm/slurm.conf.in
# (filled in with this machine's hostname and CPU count) with all their
# files in a temporary folder, submits the array with `sbatch --wait`,
# merges, compares, and stops the daemons it started (by pid) on every exit.
#
#   SCHEDSIM_TRACES=/path/to/traces scripts/ci-slurm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
: "${SCHEDSIM_TRACES:?set SCHEDSIM_TRACES to the traces folder (the sweep reads the KTH log)}"
export SCHEDSIM_TRACES

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "installing slurm-wlm and munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/schedsim-ci-slurm.XXXXXX)
pids=()
cleanup() {
  status=$?
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill "${pids[$i]}" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ]; then
    echo "ci-slurm: FAILED (status $status); daemon logs:" >&2
    tail -n 30 "$work"/*.log "$work"/*.out "$work"/out/slurm/*.out 2>/dev/null >&2 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT INT TERM

echo "=== building the sweep tool (release): schedsim sweep, as users run it"
cargo build --release -q -p schedsim-cli
xtask="$root/target/release/schedsim"
spec="$root/scripts/slurm/ci-sweep.toml"

echo "=== the sweep, locally"
"$xtask" sweep "$spec" --out "$work/local" --quiet
"$xtask" sweep "$spec" --out "$work/local" --merge

echo "=== a one-node Slurm cluster in $work"
mkdir -p "$work/munge" "$work/state" "$work/spool"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
munged --foreground --force \
  --key-file="$work/munge/munge.key" \
  --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munged.log" \
  --seed-file="$work/munge/munged.seed" >"$work/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
munge --socket="$work/munge/munge.socket" -n | unmunge --socket="$work/munge/munge.socket" >/dev/null

host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
sed -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEMORY@|$memory|g" \
  -e "s|@DIR@|$work|g" -e "s|@CTLD_PORT@|${SLURMCTLD_PORT:-6817}|g" \
  -e "s|@SLURMD_PORT@|${SLURMD_PORT:-6818}|g" \
  scripts/slurm/slurm.conf.in > "$work/slurm.conf"
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1 || true)
  case "$state" in idle*) break ;; esac
  sleep 0.5
done
sinfo -N
case "$(sinfo -h -N -o '%T' | head -n 1)" in
  idle*) ;;
  *) echo "the node did not become idle" >&2; exit 1 ;;
esac

echo "=== the sweep as a job array"
"$xtask" sweep "$spec" --out "$work/out" --slurm --shards 3 --cpus-per-task 1
timeout 600 sbatch --wait "$work/out/sweep.sbatch"
tasks=$(ls "$work/out/slurm" | wc -l)
[ "$tasks" -eq 3 ] || { echo "expected 3 array task logs, found $tasks" >&2; exit 1; }
grep -h "cells (shard" "$work"/out/slurm/*.out
"$xtask" sweep "$spec" --out "$work/out" --merge

echo "=== comparing with the local run"
cmp "$work/local/results.csv" "$work/out/results.csv"
cmp "$work/local/differentials.csv" "$work/out/differentials.csv"
diff -r "$work/local/plots" "$work/out/plots"
diff <(ls "$work/local/cells") <(ls "$work/out/cells")
echo "ci-slurm: the Slurm array's merged results equal the local run's ($(($(wc -l < "$work/out/results.csv") - 1)) rows)"
