"""A Gymnasium environment for learning job schedulers (RLScheduler's
setting), on schedsim's event loop.

    from schedsim.env import SchedulingEnv
    env = SchedulingEnv()                      # Lublin-Feitelson, 256 nodes
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(0)

Each step the agent picks one of the first `window` waiting jobs (action:
its row). If it fits, it starts now and the agent picks again at the same
instant; otherwise it is reserved and time advances (with `backfill=True`,
other jobs are EASY-backfilled around it) until it starts. An action on an
empty row picks the first waiting job; `info["action_mask"]` marks the
valid rows. An episode is `episode_jobs` consecutive jobs of the workload
from a random start (seeded); it ends when all have started, and the only
non-zero reward comes then: minus the episode's mean bounded slowdown
(tau = 10 s), or minus its mean wait with `metric="wait"`.

Observation: a float32 array of shape (window, 6), one row per waiting
job in arrival order, zeros for empty rows: wait so far / 12 h (capped at
1), size / machine processors, estimate / the workload's largest estimate,
1 if the job fits now, free processors / machine processors, 1 for a row
holding a job.
"""

from __future__ import annotations

import os
from typing import Optional

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _schedsim


class SchedulingEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(self, workload: Optional[str] = None, window: int = 128,
                 episode_jobs: int = 256, backfill: bool = False, metric: str = "bsld",
                 procs: int = 256, jobs: int = 10000, seed: int = 0, lenient: bool = False):
        path = None if workload is None else os.fspath(workload)
        self.core = _schedsim.EnvCore(path, window, episode_jobs, backfill, metric,
                                      procs, jobs, seed, lenient)
        self.window = window
        self.observation_space = spaces.Box(0.0, 1.0, shape=(window, self.core.features),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(window)

    def _info(self, obs: np.ndarray) -> dict:
        return {"action_mask": obs[:, -1] > 0.5}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None and not isinstance(seed, bool) and isinstance(seed, int) \
                and seed >= 2**64:
            raise ValueError(f"seed {seed} is more than 2**64 - 1")
        super().reset(seed=seed)
        if seed is not None:
            self.core.seed(seed)
        options = options or {}
        unknown = sorted(set(options) - {"start"})
        if unknown:
            raise ValueError(f"unknown reset option {unknown[0]!r}: the only one is 'start'")
        start = options.get("start")
        if start is not None and (isinstance(start, bool) or not isinstance(start, (int, np.integer))
                                  or start < 0):
            raise ValueError(f"reset option 'start' is a job index, 0 or more, not {start!r}")
        obs = self.core.reset(None if start is None else int(start))
        return obs, self._info(obs)

    def step(self, action):
        # An action outside the space (row `window`, -1, 1.7) was taken as
        # row 0 or truncated; empty rows inside it pick the first job.
        if isinstance(action, (bool, np.bool_)) or not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in the action space: a row from 0 to "
                             f"{self.window - 1}")
        obs, reward, terminated = self.core.step(int(action))
        return obs, float(reward), bool(terminated), False, self._info(obs)
