"""The Python package's performance figures (issue 15):

- `simulate` from Python against the `schedsim` command on the same trace
  (the simulation's own time, as both report it, and the wall time of the
  whole call);
- environment steps per second with a random agent, episodes of 256 jobs
  of a Lublin-Feitelson 256-node workload (RLScheduler's setting).

    SCHEDSIM_TRACES=... SCHEDSIM_BIN=target/release/schedsim \
        python crates/python/examples/bench.py
"""

import json
import os
import pathlib
import subprocess
import tempfile
import time

import numpy as np

import schedsim
from schedsim.env import SchedulingEnv


def simulate_figures(trace: pathlib.Path, binary: str, repeat: int = 5) -> None:
    # Both produce summary.json and the text of jobs.csv (the command writes
    # them to files, Python returns them).
    python_wall, python_sim = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        run = schedsim.simulate(trace, policy="easy", lenient=True)
        run.jobs_csv
        python_wall.append(time.perf_counter() - started)
        python_sim.append(run.elapsed_seconds)
    cli_wall = []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([binary, "simulate", "-w", str(trace), "-p", "easy", "--lenient",
                            "-o", out], check=True, capture_output=True)
            cli_wall.append(time.perf_counter() - started)
    print(f"{trace.name}, easy: Python call {np.median(python_wall):.3f} s "
          f"(simulation {np.median(python_sim):.3f} s), command {np.median(cli_wall):.3f} s "
          f"(medians of {repeat}); ratio {np.median(python_wall) / np.median(cli_wall):.2f}")


def env_figures(episodes: int = 200) -> None:
    env = SchedulingEnv(seed=0)
    rng = np.random.default_rng(0)
    steps, started = 0, time.perf_counter()
    for seed in range(episodes):
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, _, terminated, _, info = env.step(action)
            steps += 1
    with_agent = steps / (time.perf_counter() - started)
    # The environment alone: always the first row (no NumPy work by the agent).
    steps, started = 0, time.perf_counter()
    for seed in range(episodes):
        env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, _, terminated, _, _ = env.step(0)
            steps += 1
    alone = steps / (time.perf_counter() - started)
    print(f"environment: {with_agent:,.0f} steps/s with a random agent, "
          f"{alone:,.0f} steps/s stepping alone ({episodes} episodes of 256 jobs)")


if __name__ == "__main__":
    traces = os.environ.get("SCHEDSIM_TRACES")
    binary = os.environ.get("SCHEDSIM_BIN", "schedsim")
    if traces:
        for name in ["LANL-CM5-1994-4.1-cln.swf.gz", "KTH-SP2-1996-2.1-cln.swf.gz"]:
            simulate_figures(pathlib.Path(traces) / name, binary)
    else:
        print("SCHEDSIM_TRACES is not set: skipping the simulate figures")
    env_figures()
