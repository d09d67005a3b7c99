"""Drive a training to its limits: generations on the workers, a progress bar, checkpoints and evaluations.

``train`` is what ``knorri-sim train`` calls once its options are read. The CPU time it counts is the training's
own (self-play and learning, in this process and in the workers), summed over every resume; evaluations are timed
apart, so the learning curve's time axis is the training's cost alone.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from tqdm import tqdm

from experiments.train import evaluate as evaluation
from experiments.train.loop import Limits, Method, Training, TrainingError, timed_shard


def shard_runner(workers: int, scheduler: str | None, stack: ExitStack) -> Callable[[list[tuple]], list[tuple]]:
    """How a generation's shards are played: here (one worker), on ``workers`` local processes, or on the Dask
    cluster at ``scheduler``."""
    if scheduler:
        from dask.distributed import Client

        try:
            client = stack.enter_context(Client(scheduler, timeout="20s"))
        except OSError as error:
            raise TrainingError(f"--scheduler {scheduler!r}: cannot reach a Dask scheduler there ({error})") from None
        return lambda jobs: client.gather(client.map(timed_shard, *zip(*jobs, strict=True), pure=False))
    if workers > 1:
        from joblib import Parallel, delayed

        pool = stack.enter_context(Parallel(n_jobs=workers, backend="loky"))
        return lambda jobs: pool(delayed(timed_shard)(*job) for job in jobs)
    return lambda jobs: [timed_shard(*job) for job in jobs]


def train(out: Path, method: Method, limits: Limits, workers: int = 1, scheduler: str | None = None,
          resume: bool = False, command: str = "", progress: bool = True, announce: str | None = None) -> Training:
    """Train into ``out`` (resuming its checkpoint if it has one) until ``limits`` are reached; write a checkpoint
    and an evaluation every ``limits.checkpoint_*`` and at the end. ``announce``: a line for stderr once the folder
    is taken and there is training to do (what it compiles first)."""
    if limits.budget_minutes is None and limits.hands is None:
        raise TrainingError("give --budget MINUTES (CPU minutes in all) or --hands N (hands in all), or both")
    with ExitStack() as stack:
        training = Training(out, method, shard_runner(workers, scheduler, stack), command, resume)
        counters = training.counters
        if reached(training, limits):
            print(f"{out}: already trained {counters.hands:,} hands in {counters.cpu_seconds / 60:.1f} CPU minutes, "
                  "its limits; raise --budget or --hands to train on", file=sys.stderr)
            return training
        if announce:
            print(announce, file=sys.stderr, flush=True)

        def judge(weights: str, confirm: bool = False) -> dict[str, Any]:
            return evaluation.evaluate_tables(method.game, method.seats, weights, method.seed, method.eval_deals,
                                              method.options, others=method.eval_others,
                                              stream=evaluation.CONFIRM_STREAM if confirm else evaluation.EVAL_STREAM)

        bar = tqdm(total=limits.hands, initial=counters.hands, unit="hand", disable=not progress, smoothing=0.1,
                   dynamic_ncols=True, desc=f"train {method.game}")
        stack.callback(bar.close)
        last_cpu, last_hands = counters.cpu_seconds, counters.hands
        while not reached(training, limits):
            cpu, wall = time.process_time(), time.perf_counter()
            hands, decisions, loss, worker_cpu = training.generation()
            counters.cpu_seconds += time.process_time() - cpu + (worker_cpu if workers > 1 or scheduler else 0.0)
            counters.wall_seconds += time.perf_counter() - wall
            counters.hands += hands
            counters.decisions += decisions
            counters.loss = loss if counters.loss != counters.loss else 0.9 * counters.loss + 0.1 * loss
            bar.update(hands)
            bar.set_postfix(loss=f"{counters.loss:.3f}", cpu_min=f"{counters.cpu_seconds / 60:.1f}")
            due = (counters.hands - last_hands >= limits.checkpoint_hands) if limits.checkpoint_hands else \
                (counters.cpu_seconds - last_cpu >= limits.checkpoint_minutes * 60)
            if due and not reached(training, limits):
                report(bar, training.checkpoint(judge))
                last_cpu, last_hands = counters.cpu_seconds, counters.hands
        report(bar, training.checkpoint(judge))
    return training


def reached(training: Training, limits: Limits) -> bool:
    """Whether the training has played its hands or spent its CPU budget."""
    counters = training.counters
    return (limits.hands is not None and counters.hands >= limits.hands) or \
        (limits.budget_minutes is not None and counters.cpu_seconds >= limits.budget_minutes * 60)


def report(bar: tqdm, result: dict[str, Any] | None) -> None:
    """One line under the bar for an evaluation."""
    if result is not None:
        bar.write(evaluation_line(result))


def evaluation_line(result: dict[str, Any]) -> str:
    """An evaluation in words: hands, CPU minutes, the mean paired difference and its interval (for several seat
    counts, the mean over the counts, then each count's)."""
    line = (f"checkpoint at {result['hands']:,} hands, {result['cpu_seconds'] / 60:.1f} CPU min: against "
            f"{result['opponent']} (others {result['others']}) {result['mean']:+.3f} points per row, 95% interval "
            f"{result['low']:+.3f} to {result['high']:+.3f} over {result['deals']} duplicate deals")
    by_seats = result.get("by_seats")
    if not by_seats:
        return line
    counts = ", ".join(f"{n} seats {part['mean']:+.3f}" for n, part in by_seats.items())
    return f"{line} at each seat count, the mean of the counts' ({counts})"
