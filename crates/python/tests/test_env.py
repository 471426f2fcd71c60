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


def test_bad_arguments_are_clear_errors():
    # jobs=2**40 aborted the interpreter with a failed allocation.
    with pytest.raises(ValueError, match="more than the 67108864 jobs"):
        SchedulingEnv(jobs=2**40)
    with pytest.raises(ValueError, match="window=1099511627776 is more than"):
        SchedulingEnv(jobs=2000, window=2**40)
    env = SchedulingEnv(jobs=2000, window=4, episode_jobs=20, seed=1)
    with pytest.raises(ValueError, match="unknown reset option 'strat'"):
        env.reset(options={"strat": 0})
    with pytest.raises(ValueError, match="'start' is a job index, 0 or more, not -1"):
        env.reset(options={"start": -1})
    # Before: OverflowError "int too big to convert".
    with pytest.raises(ValueError, match="seed 18446744073709551616 is more than 2\\*\\*64 - 1"):
        env.reset(seed=2**64)
    env.reset(seed=2**64 - 1)
    env.reset(seed=1)
    # Outside the space: taken as row 0 (4, 10**30: OverflowError) or
    # truncated (1.7) before.
    for action in (4, -1, 1.7, 10**30, True):
        with pytest.raises(ValueError, match="not in the action space: a row from 0 to 3"):
            env.step(action)
    env.step(np.int64(3))
