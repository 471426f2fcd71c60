"""Cross-check a schedsim run with evalys, the Batsim project's analysis tool.

Usage: python check_evalys.py RUN_DIR [--plots]
(RUN_DIR holds jobs.csv and summary.json)

Loads RUN_DIR/jobs.csv with evalys.jobset.JobSet.from_csv and checks that its
mean waiting time and utilization agree with schedsim's summary.json; with
--plots it also draws every evalys plot that takes a jobs.csv (JobSet.plot with details, the
Gantt charts, the load and free-resource plots with the log's start date from
summary.json, the processor load, the series and the general shape) into
RUN_DIR/evalys/, so a missing column fails here and not on a user's machine
(matplotlib draws one rectangle per job: use a run of a few hundred jobs).
evalys averages the busy processors between the first start and the last
finish; schedsim's utilization (LOS thesis) divides the same area by the span
from the first submission to the last finish, so the evalys figure is
rescaled to that span before comparing.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from evalys.jobset import JobSet  # noqa: E402
from evalys.metrics import load_mean  # noqa: E402
from evalys.visu import legacy  # noqa: E402


def main(run_dir: Path, with_plots: bool) -> int:
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
    if with_plots:
        plots(run_dir, jobs, procs, summary)
    return 0 if ok else 1


def plots(run_dir: Path, jobs: JobSet, procs: int, summary: dict) -> None:
    """Every evalys plot of a jobs.csv; raises if one fails."""
    out = run_dir / "evalys"
    out.mkdir(exist_ok=True)
    start = summary.get("unix_start_time") or 0
    zone = summary.get("time_zone") or "UTC"
    drawn = []

    def save(name: str) -> None:
        plt.savefig(out / f"{name}.png")
        plt.close("all")
        drawn.append(name)

    jobs.plot(with_details=True)
    save("jobset-details")
    jobs.plot(with_details=True, time_scale=True)
    save("jobset-details-time")
    jobs.gantt()
    save("gantt")
    legacy.plot_gantt(jobs)
    save("legacy-gantt")
    legacy.plot_load(
        jobs.utilisation, procs, UnixStartTime=start, TimeZoneString=zone
    )
    save("load")
    legacy.plot_free_resources(
        jobs.utilisation, procs, UnixStartTime=start, TimeZoneString=zone
    )
    save("free-resources")
    legacy.plot_processor_load(jobs)
    save("processor-load")
    legacy.plot_job_details(jobs.df, procs)
    save("job-details")
    legacy.plot_series("waiting_time", {"run": jobs})
    save("series-waiting-time")
    legacy.plot_gantt_general_shape({"run": jobs})
    save("general-shape")
    print(f"evalys plots: {', '.join(drawn)}")


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), "--plots" in sys.argv[2:]))
