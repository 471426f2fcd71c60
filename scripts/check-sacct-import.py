#!/usr/bin/env python3
"""Checks the SWF that `schedsim convert x.sacct x.swf` made of the CI
cluster's accounting (scripts/ci-slurm.sh): three jobs, ci-a holding every
CPU for 3 s, ci-b (sleep 1, limit 2 min) and ci-c (sleep 2, limit 30 s,
which Slurm rounds up to 1 min) waiting for it. Times are compared with
what the jobs did, allowing a second or two of daemon latency."""

import csv
import sys


def main(swf_path, mapping_path):
    with open(mapping_path, newline="") as f:
        names = {
            int(row["number"]): row["name"]
            for row in csv.DictReader(f)
            if row["field"] == "executable"
        }
    procs = None
    jobs = {}
    with open(swf_path) as f:
        for line in f:
            if line.startswith(";"):
                if line.startswith("; MaxProcs:"):
                    procs = int(line.split(":")[1])
                continue
            v = [int(x) for x in line.split()[:18] if x]
            submit, wait, run, alloc, req_time, status, executable = (
                v[1], v[2], v[3], v[4], v[8], v[10], v[13])
            jobs[names[executable]] = dict(
                start=submit + wait, end=submit + wait + run, run=run,
                alloc=alloc, req_time=req_time, status=status, wait=wait)
    problems = []

    def check(condition, text):
        if not condition:
            problems.append(text)

    check(sorted(jobs) == ["ci-a", "ci-b", "ci-c"], f"jobs: {sorted(jobs)}")
    if not problems:
        a, b, c = jobs["ci-a"], jobs["ci-b"], jobs["ci-c"]
        check(a["alloc"] == procs, f"ci-a allocated {a['alloc']} of {procs}")
        for name, job, sleep, limit in [("ci-a", a, 3, 60), ("ci-b", b, 1, 120), ("ci-c", c, 2, 60)]:
            check(sleep - 1 <= job["run"] <= sleep + 2, f"{name} ran {job['run']} s (slept {sleep} s)")
            check(job["req_time"] == limit, f"{name} requested {job['req_time']} s, not {limit}")
            check(job["status"] == 1, f"{name} status {job['status']}")
            check(job["wait"] >= 0, f"{name} waited {job['wait']} s")
        for name, job in [("ci-b", b), ("ci-c", c)]:
            check(job["start"] >= a["end"], f"{name} started at {job['start']}, before ci-a ended at {a['end']}")
    if problems:
        print("sacct import: " + "; ".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"sacct import: 3 jobs, runs {a['run']}/{b['run']}/{c['run']} s, "
          f"waits {a['wait']}/{b['wait']}/{c['wait']} s, as the jobs did")


if __name__ == "__main__":
    main(*sys.argv[1:3])
