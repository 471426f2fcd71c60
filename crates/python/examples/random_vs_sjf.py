"""A random agent and a shortest-job-first agent in the scheduling
environment, against the built-in EASY on the same episodes.

    python crates/python/examples/random_vs_sjf.py [EPISODES]

Nothing is trained: the point is the environment's contract (observation,
action mask, end-of-episode reward) and its speed.
"""

import sys
import time

import numpy as np

import schedsim
from schedsim.env import SchedulingEnv


def random_agent(obs, info, rng):
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def shortest_agent(obs, info, rng):
    return int(np.argmin(np.where(info["action_mask"], obs[:, 2], np.inf)))


def main(episodes: int) -> None:
    env = SchedulingEnv(seed=0)  # Lublin-Feitelson, 256 nodes, 10,000 jobs
    results = {}
    for name, agent in [("random", random_agent), ("shortest job first", shortest_agent)]:
        rewards, steps, started = [], 0, time.perf_counter()
        for seed in range(episodes):
            obs, info = env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            terminated = False
            while not terminated:
                obs, reward, terminated, _, info = env.step(agent(obs, info, rng))
                steps += 1
            rewards.append(-reward)
        elapsed = time.perf_counter() - started
        results[name] = np.mean(rewards)
        print(f"{name:>20}: mean bounded slowdown {np.mean(rewards):9.2f} "
              f"over {episodes} episodes ({steps / elapsed:,.0f} steps/s)")
    # The built-in EASY on the whole workload, for scale (not per episode).
    easy = schedsim.simulate(policy="easy")
    print(f"{'easy (whole built-in workload)':>20}: mean bounded slowdown "
          f"{easy.metrics['bounded_slowdown']['mean']:9.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
