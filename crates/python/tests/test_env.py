"""The Gymnasium environment: the API checker, determinism, and a shortest-
job agent beating a random one."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from schedsim.env import SchedulingEnv  # noqa: E402


def test_check_env():
    env = SchedulingEnv(jobs=2000, seed=1)
    check_env(env, skip_render_check=True)


def run_episode(env, agent, seed):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, terminated = 0.0, 0, False
    trace = []
    while not terminated:
        action = agent(obs, info, rng)
        trace.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
    return total, steps, trace, env.core.start_times()


def random_agent(obs, info, rng):
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def shortest_agent(obs, info, rng):
    # Shortest estimate first among the valid rows.
    estimates = np.where(info["action_mask"], obs[:, 2], np.inf)
    return int(np.argmin(estimates))


def test_a_seeded_episode_is_identical_twice():
    a = run_episode(SchedulingEnv(jobs=2000, seed=3), random_agent, seed=11)
    b = run_episode(SchedulingEnv(jobs=2000, seed=3), random_agent, seed=11)
    assert a == b
    reward, steps, _, starts = a
    # 256 jobs: one action each, and the reward is minus a mean bounded
    # slowdown (at least 1).
    assert steps == 256 and reward <= -1.0
    assert all(start is not None for start in starts)


def test_shortest_job_agent_beats_random():
    env = SchedulingEnv(jobs=4000, seed=5)
    seeds = range(8)
    shortest = np.mean([run_episode(env, shortest_agent, s)[0] for s in seeds])
    rand = np.mean([run_episode(env, random_agent, s)[0] for s in seeds])
    # Rewards are minus mean bounded slowdowns: higher is better.
    assert shortest > rand


def test_backfilling_option_and_metric():
    env = SchedulingEnv(jobs=2000, seed=2, backfill=True, metric="wait")
    reward, steps, _, _ = run_episode(env, shortest_agent, seed=4)
    assert reward <= 0 and steps <= 256
    with pytest.raises(ValueError, match="unknown metric"):
        SchedulingEnv(metric="speed")
