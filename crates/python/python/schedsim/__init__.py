"""schedsim from Python: simulate and compare parallel job schedulers.

    import schedsim
    run = schedsim.simulate("KTH-SP2-1996-2.1-cln.swf.gz", policy="easy", lenient=True)
    run.jobs        # pandas DataFrame: jobs.csv as `schedsim simulate` writes it
    run.summary     # dict: summary.json
    other = schedsim.simulate("KTH-SP2-1996-2.1-cln.swf.gz", policy="los", lenient=True)
    schedsim.compare(run, other)   # per-job differentials with confidence intervals

Options are the command line's (`schedsim simulate --help`), with
underscores for dashes: `load=0.9`, `overrun="extend"`,
`invoke="per-event"`; True for a flag. A policy is a built-in name with
options (`"los:lookahead=25"`) or a Python object with a
`schedule(view)` method (see `Policy`).
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Iterable, Optional, Union

from . import _schedsim
from ._schedsim import ViewSnapshot

__version__ = _schedsim.__version__

__all__ = [
    "Policy",
    "Run",
    "ViewSnapshot",
    "compare",
    "convert",
    "generate",
    "policies",
    "read_workload",
    "simulate",
]

PathLike = Union[str, "os.PathLike[str]"]


def _arguments(options: dict) -> list:
    """Turns keyword options into command-line arguments."""
    argv = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, str(value)]
    return argv


class Policy:
    """Base class for policies written in Python (subclassing is optional:
    any object with a `schedule` method works).

    `schedule(view)` is called at every decision point with a
    `ViewSnapshot`: `view.now`, `view.free`, `view.procs`, `view.queue`
    (waiting jobs in arrival order), `view.running` ((job, size, start,
    expected end) by expected end), `view.suspended`, and per job
    `view.size(job)`, `view.estimate(job)`, `view.submit(job)`,
    `view.number(job)`. It returns decisions applied in order:
    `("start", job)`, `("reject", job, reason)`, `("suspend", job)`,
    `("resume", job)`, `("wake", time)`.
    """

    name = "python"

    def schedule(self, view: ViewSnapshot) -> Iterable[tuple]:
        raise NotImplementedError


class Run:
    """One simulation: `jobs` (DataFrame of jobs.csv), `summary` (dict of
    summary.json), `jobs_csv` and `summary_json` (their text)."""

    def __init__(self, result: Any):
        self._result = result
        self._jobs_csv: Optional[str] = None
        self.policy: str = result.policy
        self.summary_json: str = result.summary_json
        self.summary: dict = json.loads(result.summary_json)
        self.elapsed_seconds: float = result.elapsed_seconds

    @property
    def jobs_csv(self) -> str:
        """jobs.csv's text (made on first use: it is large for long traces)."""
        if self._jobs_csv is None:
            self._jobs_csv = self._result.jobs_csv()
        return self._jobs_csv

    @property
    def segments_csv(self) -> Optional[str]:
        """segments.csv's text for runs that suspended jobs, else None."""
        return self._result.segments_csv()

    @property
    def jobs(self):
        """jobs.csv as a pandas DataFrame (needs pandas)."""
        import pandas

        return pandas.read_csv(io.StringIO(self.jobs_csv), keep_default_na=False,
                               na_values={"starting_time": [""], "finish_time": [""]})

    @property
    def metrics(self) -> dict:
        return self.summary["metrics"]

    def __repr__(self) -> str:
        m = self.summary["metrics"]
        return (f"Run(policy={self.policy!r}, jobs={m.get('jobs')}, "
                f"utilization={m.get('utilization')})")


def simulate(workload: Optional[PathLike] = None, policy: Any = "easy", **options) -> Run:
    """Simulates `policy` on the workload file (SWF, CWF, Batsim JSON; plain
    or gzip), or on the built-in Lublin-Feitelson workload when `workload`
    is None. Returns a `Run`."""
    argv = []
    if workload is not None:
        argv += ["--workload", os.fspath(workload)]
    argv += _arguments(options)
    if isinstance(policy, str):
        result = _schedsim.simulate(argv + ["--policy", policy])
    else:
        if not callable(getattr(policy, "schedule", None)):
            raise TypeError("a policy is a name such as 'easy' or an object with a schedule(view) method")
        name = getattr(policy, "name", None) or type(policy).__name__
        result = _schedsim.simulate(argv, policy, str(name))
    return Run(result)


def compare(a: Run, b: Run, batches: int = 30, level: float = 0.9, tau: int = 10,
            warmup: float = 0.0, drain: float = 0.0) -> dict:
    """Per-job differentials A - B (response, wait, bounded slowdown) with
    batch-means confidence intervals, as `schedsim compare` computes them."""
    return json.loads(_schedsim.compare(a._result, b._result, batches, level, tau, warmup, drain))


def read_workload(path: PathLike, lenient: bool = False):
    """Reads a workload file into a pandas DataFrame (one column per SWF
    field, -1 where unknown); the header lines are in `frame.attrs['header']`."""
    import pandas

    data = _schedsim.read_workload(os.fspath(path), lenient)
    frame = pandas.DataFrame(data["columns"])
    frame.attrs["header"] = data["header"]
    return frame


def generate(model: str, out: PathLike, **options) -> str:
    """Writes a synthetic workload: `model` is "lublin" or "cwf", options
    those of `schedsim generate MODEL` (jobs=10000, procs=128, seed=1,
    load=0.8, estimate="f:3", ...). Returns the command's report."""
    return _schedsim.generate([model, "--out", os.fspath(out)] + _arguments(options))


def convert(source: PathLike, target: PathLike, **options) -> str:
    """Converts between SWF, CWF, JSON lines, Batsim JSON and (input only)
    Slurm sacct output, by file name, as `schedsim convert` does."""
    return _schedsim.convert([os.fspath(source), os.fspath(target)] + _arguments(options))


def policies() -> list:
    """The built-in policies: (name, summary, [(option, meaning)])."""
    return _schedsim.policies()
