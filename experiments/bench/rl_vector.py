"""The vector env's speed: learner steps per CPU second on one core, random opponents in compiled code.

Each game's ``BatchVectorEnv`` with ``--envs`` slots is stepped ``--steps`` times (after
one warm-up step that compiles); the learner's actions are uniform among the legal ids,
drawn in NumPy outside the timed ``step``. A learner step includes everything the env
does: checking and applying the actions, the opponents' moves to the learner's next
turn, autoreset, the masks and the observation tensors.

    python -m experiments.bench.rl_vector --envs 4096 --steps 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rl.games import learning_games
from rl.vector_env import BatchVectorEnv


def measure(game: str, n_seats: int, envs: int, steps: int, seed: int) -> tuple[float, float, int]:
    """(learner steps per CPU second inside ``step``, the same counting the learner's draws, episodes finished)."""
    env = BatchVectorEnv(game, num_envs=envs, n_seats=n_seats, seat=0, opponents="random")
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)

    def draw(mask: np.ndarray) -> np.ndarray:
        return (rng.random(mask.shape, dtype=np.float32) * mask).argmax(axis=1)

    observation, *_ = env.step(draw(observation["action_mask"]))  # compile
    inside = 0.0
    episodes = 0
    start = time.process_time()
    for _ in range(steps):
        actions = draw(observation["action_mask"])
        before = time.process_time()
        observation, _, terminated, truncated, _ = env.step(actions)
        inside += time.process_time() - before
        episodes += int((terminated | truncated).sum())
    total = time.process_time() - start
    return envs * steps / inside, envs * steps / total, episodes


def main() -> None:
    """Print learner steps per second for every game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.envs} slots x {args.steps} steps, random opponents, one core (CPU time)")
    print("| game | seats | learner steps/s (env.step) | with the learner's draws | episodes |")
    print("|---|---|---|---|---|")
    for game, facts in learning_games().items():  # every game with RL facts, at its default seat count
        n_seats = facts.default_seats
        inside, total, episodes = measure(game, n_seats, args.envs, args.steps, args.seed)
        print(f"| {game} | {n_seats} | {inside:,.0f} | {total:,.0f} | {episodes:,} |", flush=True)


if __name__ == "__main__":
    main()
