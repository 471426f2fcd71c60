"""Cross-check a schedsim run with evalys, the Batsim project's analysis tool.

Usage: python check_evalys.py RUN_DIR   (RUN_DIR holds jobs.csv and summary.json)

Loads RUN_DIR/jobs.csv with evalys.jobset.JobSet.from_csv and checks that its
mean waiting time and utilization agree with schedsim's summary.json.
evalys averages the busy processors between the first start and the last
finish; schedsim's utilization (LOS thesis) divides the same area by the span
from the first submission to the last finish, so the evalys figure is
rescaled to that span before comparing.
"""
import json
import sys
from pathlib import Path

from evalys.jobset import JobSet
from evalys.metrics import load_mean


def main(run_dir: Path) -> int:
    summary = json.loads((run_dir / "summary.json").read_text())
    procs = summary["machine"]["procs"]
    ours_wait = summary["metrics"]["wait"]["mean"]
    ours_util = summary["metrics"]["utilization"]

    jobs = JobSet.from_csv(str(run_dir / "jobs.csv"), resource_bounds=(0, procs - 1))
    df = jobs.df
    their_wait = df.waiting_time.mean()
    first_start = df.starting_time.min()
    first_submit = df.submission_time.min()
    last_finish = df.finish_time.max()
    busy = load_mean(jobs.utilisation)  # mean busy processors over [first start, last finish]
    their_util = busy * (last_finish - first_start) / (last_finish - first_submit) / procs

    print(f"jobs: {len(df)}")
    print(f"mean wait: schedsim {ours_wait:.6f}  evalys {their_wait:.6f}")
    print(f"utilization: schedsim {ours_util:.9f}  evalys {their_util:.9f}")
    ok = abs(ours_wait - their_wait) <= 1e-6 * max(1.0, abs(ours_wait)) and abs(
        ours_util - their_util
    ) <= 1e-9
    print("agree" if ok else "DISAGREE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
