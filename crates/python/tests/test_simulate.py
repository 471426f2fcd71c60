"""simulate, compare, read, generate and convert from Python: the CLI's
results and the CLI's errors."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

import schedsim


def cli():
    binary = os.environ.get("SCHEDSIM_BIN") or shutil.which("schedsim")
    if not binary:
        pytest.skip("no schedsim binary (set SCHEDSIM_BIN) to compare with")
    return binary


def test_simulate_equals_the_command(workload, tmp_path):
    run = schedsim.simulate(workload, policy="easy", load=0.9)
    out = tmp_path / "runs"
    subprocess.run([cli(), "simulate", "-w", str(workload), "-p", "easy", "--load", "0.9",
                    "-o", str(out)], check=True, capture_output=True)
    assert run.jobs_csv == (out / "easy" / "jobs.csv").read_text()
    summary = json.loads((out / "easy" / "summary.json").read_text())
    assert run.summary == summary


def test_dataframe_and_metrics(workload):
    run = schedsim.simulate(workload, policy="los:lookahead=25")
    frame = run.jobs
    assert len(frame) == 2000
    assert list(frame.columns[:4]) == ["job_id", "workload_name", "profile", "submission_time"]
    assert (frame["final_state"].isin(["COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED"])).all()
    waits = frame["starting_time"] - frame["submission_time"]
    assert abs(waits.mean() - run.metrics["wait"]["mean"]) < 1e-6


def test_compare_gives_intervals(workload):
    easy = schedsim.simulate(workload, policy="easy")
    fcfs = schedsim.simulate(workload, policy="fcfs")
    result = schedsim.compare(fcfs, easy)
    # FCFS - EASY response: EASY backfills, so FCFS jobs respond later.
    # 2,000 = 30 * 66 + 20: 20 batches of 67 and 10 of 66, every job
    # compared.
    assert result["jobs"] == 2000 and result["batches"] == 30
    assert result["batch_size"] == 66 and result["larger_batches"] == 20
    assert result["response"]["low"] > 0
    same = schedsim.compare(easy, easy)
    assert same["response"]["mean"] == 0


def test_errors_are_python_exceptions(workload):
    with pytest.raises(RuntimeError, match="unknown policy `eazy`"):
        schedsim.simulate(workload, policy="eazy")
    with pytest.raises(ValueError, match="--no-such-option"):
        schedsim.simulate(workload, no_such_option=3)
    with pytest.raises(RuntimeError, match="cannot read /nonexistent/w.swf"):
        schedsim.simulate("/nonexistent/w.swf")


def test_read_generate_convert(tmp_path):
    swf = tmp_path / "w.swf"
    report = schedsim.generate("lublin", swf, jobs=300, procs=32, seed=3)
    assert "300" in report
    frame = schedsim.read_workload(swf)
    assert len(frame) == 300
    assert (frame["requested_processors"] <= 32).all()
    assert any(line.startswith("; MaxProcs") or line.startswith("; MaxNodes")
               for line in frame.attrs["header"])
    batsim = tmp_path / "w.json"
    schedsim.convert(swf, batsim)
    back = schedsim.read_workload(batsim)
    assert list(back["run_time"]) == list(frame["run_time"])
    # The same schedule from the Batsim file.
    a = schedsim.simulate(swf, policy="easy").jobs
    b = schedsim.simulate(batsim, policy="easy").jobs
    assert list(a["starting_time"]) == list(b["starting_time"])


def test_policies_listed():
    names = [name for name, _, _ in schedsim.policies()]
    assert "easy" in names and "los" in names and "conservative" in names
