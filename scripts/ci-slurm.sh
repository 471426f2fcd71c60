#!/usr/bin/env bash
# A one-node Slurm cluster with accounting, started here, checks two things:
# - Slurm accounting import: a few jobs are submitted, their `sacct -P`
#   records are converted to SWF (schedsim convert x.sacct x.swf) and the
#   times checked against what the jobs did;
# - sweeps: a small sweep runs as a Slurm job array, and its merged results
#   must equal the same sweep run locally;
# - priorities: restarted with priority/multifactor and sched/backfill
#   (scripts/slurm/priority.conf), the cluster runs whole-node sleep jobs
#   whose order the job size weight decides, and schedsim's slurm-backfill
#   with the same slurm.conf must start them in the same order.
#
# Installs Debian's slurm-wlm, slurmdbd, munge and mariadb-server if missing
# (needs root and apt), starts munged, MariaDB (its own data folder, on
# 127.0.0.1 only), slurmdbd, slurmctld and slurmd from scripts/slurm/*.in
# (filled in with this machine's hostname and CPU count) with all their
# files in a temporary folder, and stops the daemons it started (by pid) on
# every exit.
#
#   SCHEDSIM_TRACES=/path/to/traces scripts/ci-slurm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
: "${SCHEDSIM_TRACES:?set SCHEDSIM_TRACES to the traces folder (the sweep reads the KTH log)}"
export SCHEDSIM_TRACES

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null \
  || ! command -v slurmdbd >/dev/null || ! command -v mariadbd >/dev/null; then
  echo "installing slurm-wlm, slurmdbd, munge and mariadb-server"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm slurmdbd munge \
    mariadb-server >/dev/null
fi
db_port=${SCHEDSIM_CI_DB_PORT:-13306}
dbd_port=${SLURMDBD_PORT:-6819}

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

echo "=== MariaDB for slurmdbd"
mariadb-install-db --no-defaults --datadir="$work/mysql" --user=root \
  --auth-root-authentication-method=normal >"$work/mariadb-install.out" 2>&1
mariadbd --no-defaults --datadir="$work/mysql" --socket="$work/mysql.sock" \
  --port="$db_port" --bind-address=127.0.0.1 --skip-name-resolve --user=root \
  --pid-file="$work/mysql.pid" --log-error="$work/mariadb.log" &
pids+=($!)
for _ in $(seq 120); do
  mariadb-admin --no-defaults --socket="$work/mysql.sock" -uroot ping >/dev/null 2>&1 && break
  sleep 0.5
done
mariadb --no-defaults --socket="$work/mysql.sock" -uroot -e \
  "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'ci'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"

host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
fill() {
  sed -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEMORY@|$memory|g" \
    -e "s|@DIR@|$work|g" -e "s|@CTLD_PORT@|${SLURMCTLD_PORT:-6817}|g" \
    -e "s|@SLURMD_PORT@|${SLURMD_PORT:-6818}|g" -e "s|@DBD_PORT@|$dbd_port|g" \
    -e "s|@DB_PORT@|$db_port|g" "$1"
}
fill scripts/slurm/slurm.conf.in > "$work/slurm.conf"
fill scripts/slurm/slurmdbd.conf.in > "$work/slurmdbd.conf"
chmod 600 "$work/slurmdbd.conf"
export SLURM_CONF="$work/slurm.conf"
slurmdbd -D >"$work/slurmdbd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.5; done
sacctmgr -i add cluster schedsimci >/dev/null
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
ctld_pid=$!
pids+=($ctld_pid)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$work/slurmd.out" 2>&1 &
slurmd_pid=$!
pids+=($slurmd_pid)
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

echo "=== Slurm accounting into SWF"
# ci-a holds every CPU for 3 s; ci-b and ci-c wait for it.
sbatch -J ci-a -n "$cpus" -t 1 -o /dev/null --wrap "sleep 3" >/dev/null
sbatch -J ci-b -n 1 -t 2 -o /dev/null --wrap "sleep 1" >/dev/null
sbatch -J ci-c -n 1 -t 00:00:30 -o /dev/null --wrap "sleep 2" >/dev/null
fields=JobIDRaw,Submit,Start,End,State,ExitCode,AllocCPUS,ReqCPUS,NNodes,Timelimit,ReqMem,User,Group,Account,Partition,QOS,JobName
for _ in $(seq 120); do
  done_jobs=$(sacct -a -X -n -P --name=ci-a,ci-b,ci-c -o State | grep -c '^COMPLETED' || true)
  [ "$done_jobs" -eq 3 ] && break
  sleep 1
done
sacct -a -X -P --name=ci-a,ci-b,ci-c -o "$fields" > "$work/ci.sacct"
cat "$work/ci.sacct"
"$xtask" convert "$work/ci.sacct" "$work/ci.swf" --procs "$cpus"
python3 scripts/check-sacct-import.py "$work/ci.swf" "$work/ci.mapping.csv"
"$xtask" simulate -w "$work/ci.swf" --policy fcfs >/dev/null

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

echo "=== Slurm priorities: multifactor (NO_FAIR_TREE) and sched/backfill against slurm-backfill"
priority_started=$(date +%s)
kill "$slurmd_pid" "$ctld_pid"
wait "$slurmd_pid" "$ctld_pid" 2>/dev/null || true
{ fill scripts/slurm/slurm.conf.in | sed -e "s/ CPUs=$cpus / CPUs=8 /"; cat scripts/slurm/priority.conf; } \
  > "$work/priority.conf"
export SLURM_CONF="$work/priority.conf"
slurmctld -D -c -i -f "$SLURM_CONF" >"$work/slurmctld-priority.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$work/slurmd-priority.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  case "$(sinfo -h -N -o '%T %c' 2>/dev/null | head -n 1 || true)" in "idle 8") break ;; esac
  sleep 0.5
done
sinfo -N -o '%N %T %c'
# A blocker holds all 8 CPUs; then jobs of 5, 6, 7 and 8 CPUs are
# submitted smallest first. Size priorities (1 + c/8)/2 x 1000 give 812,
# 875, 937 and 1000: Slurm starts them largest first, one at a time.
sbatch -J prio-blocker -n 8 -t 1 -o /dev/null --wrap "sleep 4" >/dev/null
for _ in $(seq 40); do
  [ "$(squeue -h -n prio-blocker -o %T)" = RUNNING ] && break
  sleep 0.25
done
for c in 5 6 7 8; do
  sbatch -J "prio-$c" -n "$c" -t 1 -o /dev/null --wrap "sleep 2" >/dev/null
done
squeue -o '%i %j %C %Q %T'
squeue -h -t PENDING -o '%i|%C|%Q' > "$work/prio.pending"
for _ in $(seq 90); do
  done_jobs=$(sacct -a -X -n -P --name=prio-blocker,prio-5,prio-6,prio-7,prio-8 -o State | grep -c '^COMPLETED' || true)
  [ "$done_jobs" -eq 5 ] && break
  sleep 1
done
sacct -a -X -P --name=prio-blocker,prio-5,prio-6,prio-7,prio-8 -o "$fields" > "$work/prio.sacct"
cat "$work/prio.sacct"
"$xtask" convert "$work/prio.sacct" "$work/prio.swf" --procs 8
"$xtask" simulate -w "$work/prio.swf" --slurm-conf "$work/priority.conf" \
  -p slurm-backfill:cpus-per-node=8 -o "$work/prio-run" >/dev/null
python3 scripts/check-slurm-priority.py "$work/prio.sacct" \
  "$work"/prio-run/slurm-backfill*/jobs.csv "$work/prio.pending"
echo "Slurm priority step: $(( $(date +%s) - priority_started )) s"
