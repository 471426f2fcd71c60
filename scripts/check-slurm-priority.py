#!/usr/bin/env python3
"""Compares the start order of the CI cluster's priority check
(scripts/ci-slurm.sh) with schedsim's slurm-backfill on the same jobs:
the sacct output (JobName, Start and AllocCPUS columns, -P) and the
jobs.csv of the simulation (jobs numbered as `schedsim convert` numbers
them: the sacct JobIDRaw). Jobs are ordered by start time, ties by id;
the orders must be equal, and must differ from submission order (else the
check would not test priorities). With a third file (`squeue -h -t PENDING
-o '%i|%C|%Q'`), Slurm's priorities must also equal the job size factor
schedsim computes on one 8-CPU node with PriorityWeightJobSize=1000:
floor(1000 x (1/1 + c/8) / 2)."""

import csv
import sys


def main(sacct_path, jobs_csv_path, pending_path=None):
    with open(sacct_path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="|"))
    slurm = sorted(rows, key=lambda r: (r["Start"], int(r["JobIDRaw"])))
    slurm_order = [int(r["JobIDRaw"]) for r in slurm]
    with open(jobs_csv_path, newline="") as f:
        sim = list(csv.DictReader(f))
    sim.sort(key=lambda r: (float(r["starting_time"]), int(r["job_id"])))
    sim_order = [int(r["job_id"]) for r in sim]
    names = {int(r["JobIDRaw"]): f'{r["JobName"]}({r["AllocCPUS"]} CPUs)' for r in rows}
    print("Slurm   :", " ".join(names[j] for j in slurm_order))
    print("schedsim:", " ".join(names.get(j, str(j)) for j in sim_order))
    if slurm_order != sim_order:
        sys.exit("the start orders differ")
    if slurm_order == sorted(slurm_order):
        sys.exit("Slurm started the jobs in submission order: the check tests nothing")
    if pending_path:
        with open(pending_path) as f:
            for line in f:
                job, cpus, priority = (int(x) for x in line.strip().split("|"))
                expected = int(1000 * (1 + cpus / 8) / 2)
                print(f"job {job}: {cpus} CPUs, Slurm priority {priority}, schedsim {expected}")
                if priority != expected:
                    sys.exit(f"job {job}: Slurm priority {priority}, schedsim {expected}")
    print("priority check: same start order")


if __name__ == "__main__":
    main(*sys.argv[1:])
