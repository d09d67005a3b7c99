"""The training loop of ``knorri-sim train``: Deep Monte-Carlo, generation by generation, with checkpoints.

**The method.** Deep Monte-Carlo (DMC), the method of DouZero: a Q-network scores every action of a position and
is regressed on the final score the seat finished the deal with, from epsilon-greedy self-play of the current
network, with the engine's ``greedy`` or ``random`` at some seats (``Method.opponents``). **A generation** is
``GENERATION_SHARDS`` shards of self-play deals played on the workers, then one pass of minibatches over their
decisions; its draws come from the training's seed and the generation's number. **Checkpoints** hold everything a
killed training resumes from, each followed by an evaluation against ``greedy``; ``weights.npz`` is the averaged
network and ``best.npz`` the best evaluated. More in docs/internals.md, ``experiments.train.loop``.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.learned.network import LAYERS, QNetwork, random_network
from experiments.errors import UsageError
from experiments.train import imitation, selfplay
from experiments.train.tables import EVAL_OTHERS, SELF_PLAY_OPPONENTS, TEACHER_OPPONENTS
from sim import games
from sim.rng import derive_seed, derive_seeds

GENERATION_SHARDS = 4
"""Shards of self-play a generation plays (each a batch of deals), the unit of work a worker takes."""
MINIBATCH = 1024
"""Decisions per Adam step."""
SETTINGS_FILE, CHECKPOINT_FILE, WEIGHTS_FILE, BEST_FILE = "training.json", "checkpoint.npz", "weights.npz", "best.npz"
EVALUATIONS_FILE = "evaluations.jsonl"
KIND = "knorri-sim training"


class TrainingError(UsageError):
    """Bad input to a training (one line: its folder holds another training, nothing to resume, ...)."""


@dataclass(frozen=True)
class Method:
    """What makes a training what it is: a folder resumes only the training with the same method."""

    game: str
    seats: tuple[int, ...]
    options: dict[str, Any]
    seed: int
    hidden: tuple[int, int] = (256, 128)
    learning_rate: float = 3e-4
    epsilon: float = 0.05
    opponents: dict[str, float] = field(default_factory=lambda: dict(SELF_PLAY_OPPONENTS))
    eval_deals: int = 200
    eval_others: str = EVAL_OTHERS  # the spec at the seats an evaluation does not test
    shard_hands: int = 64
    teacher: str | None = None  # imitate this agent's choices (``imitation``) instead of regressing on returns
    teacher_opponents: dict[str, float] = field(default_factory=lambda: dict(TEACHER_OPPONENTS))
    passes: int = 1  # passes of minibatches over each generation's decisions
    student_share: float = 0.0  # with a teacher: the chance a teacher seat plays the network's moves (DAgger)


@dataclass
class Limits:
    """When to stop and when to write: CPU minutes in all (over every resume), hands in all, and the spacing of
    checkpoints (CPU minutes, or hands when given, which makes their places independent of the machine)."""

    budget_minutes: float | None = None
    hands: int | None = None
    checkpoint_minutes: float = 5.0
    checkpoint_hands: int | None = None


@dataclass
class Counters:
    """How far a training has come; kept in every checkpoint."""

    generation: int = 0
    hands: int = 0
    decisions: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    checkpoints: int = 0
    loss: float = float("nan")
    history: list[dict[str, Any]] = field(default_factory=list)


def input_scale(method: Method) -> np.ndarray:
    """The network's fixed input scale: one over each feature's largest size (at least 1) in a shard of uniformly
    random play from the training's seed at each of its seat counts, so counts such as phase-2 actions come in
    near 1 at every count (a feature of the fifth seat is zero at three seats, and unscaled there)."""
    facts = games.adapter(method.game).LEARNING
    network = random_network(facts.observation_size, facts.num_actions, method.hidden, seed=method.seed)
    largest = np.zeros(facts.observation_size, dtype=np.float32)
    for n_seats in method.seats:
        samples = selfplay.play_shard(method.game, n_seats, shard_seeds(method.seed, -1, 0, method.shard_hands),
                                      method.options, network, 1.0, {}, derive_seed(method.seed, 7))
        largest = np.maximum(largest, np.abs(samples.observations.astype(np.float32)).max(axis=0, initial=0.0))
    return (1.0 / np.maximum(largest, 1.0)).astype(np.float32)


def shard_seeds(seed: int, generation: int, shard: int, hands: int) -> np.ndarray:
    """The ``hands`` deal seeds of one shard of one generation (generation -1: the scale's shard)."""
    base = derive_seed(seed, generation + 1, shard)
    return derive_seeds(np.full(hands, base, dtype=np.uint64), np.arange(hands, dtype=np.uint64))


def timed_shard(play: Callable[..., selfplay.Samples], *arguments: Any) -> tuple[selfplay.Samples, float]:
    """``play(*arguments)`` (``selfplay.play_shard`` or ``imitation.play_teacher_shard``) and the CPU seconds it
    took where it ran (a worker's CPU is not this process's)."""
    started = time.process_time()
    samples = play(*arguments)
    return samples, time.process_time() - started


class Training:
    """One training folder: its method, the learner, the counters; ``run`` trains until a limit is reached."""

    def __init__(self, out: Path, method: Method, run_shards: Callable[[list[tuple]], list[tuple]],
                 command: str, resume: bool) -> None:
        from experiments.train.learner import Learner, library_versions

        self.out, self.method, self.run_shards, self.command = out, method, run_shards, command
        self.counters = Counters()
        saved = read_settings(out)
        if saved is not None and jsonable({**asdict(method), **saved["method"]}) != jsonable(asdict(method)):
            raise TrainingError(f"--out {str(out)!r} holds another training ({describe(saved['method'])}): give a "
                                "new folder, or the same game, seats, options, seed and method to resume it")
        if resume and not (out / CHECKPOINT_FILE).exists():
            raise TrainingError(f"--resume: {str(out)!r} holds no checkpoint to resume from")
        facts = games.adapter(method.game).LEARNING
        if (out / CHECKPOINT_FILE).exists():
            arrays, self.counters = read_checkpoint(out / CHECKPOINT_FILE)
            network = QNetwork(scale=arrays["scale"], meta=network_meta(method),
                               **{name: arrays[name] for name in LAYERS})
            self.learner = Learner(network, method.learning_rate)
            self.learner.load_state(arrays)
            self.resumed = True
        else:
            network = random_network(facts.observation_size, facts.num_actions, method.hidden, seed=method.seed,
                                     scale=input_scale(method), meta=network_meta(method))
            self.learner = Learner(network, method.learning_rate)
            self.resumed = False
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_atomically(out / SETTINGS_FILE, json.dumps({
                "kind": KIND, "method": jsonable(asdict(method)), "command": command,
                "versions": library_versions()}, indent=2).encode())
        except OSError as error:
            raise TrainingError(f"--out {str(out)!r}: cannot write the training folder there "
                                f"({error.strerror or error})") from None

    def generation(self) -> tuple[int, int, float, float]:
        """Play one generation and learn from it: hands played, decisions, mean loss, workers' CPU seconds."""
        method, g = self.method, self.counters.generation
        n_seats = method.seats[g % len(method.seats)]
        if method.teacher is None:
            network = self.learner.network()
            jobs = [(selfplay.play_shard, method.game, n_seats, shard_seeds(method.seed, g, shard, method.shard_hands),
                     method.options, network, method.epsilon, method.opponents,
                     derive_seed(method.seed, g + 1, shard, 1)) for shard in range(GENERATION_SHARDS)]
        else:  # the first generation's network is untrained: its moves would teach only positions nobody reaches
            student = self.learner.network(averaged=True) if method.student_share > 0 and g > 0 else None
            jobs = [(imitation.play_teacher_shard, method.game, n_seats,
                     shard_seeds(method.seed, g, shard, method.shard_hands), method.options, method.teacher,
                     method.teacher_opponents, derive_seed(method.seed, g + 1, shard, 1), student,
                     method.student_share) for shard in range(GENERATION_SHARDS)]
        results = self.run_shards(jobs)
        samples = selfplay.Samples.joined([samples for samples, _ in results])
        worker_cpu = sum(seconds for _, seconds in results)
        rng = np.random.default_rng(derive_seed(method.seed, g + 1, 2))
        size = min(MINIBATCH, samples.decisions)
        losses = []
        for _ in range(method.passes):
            order = rng.permutation(samples.decisions)
            for start in range(0, samples.decisions - size + 1, size) if size else ():
                rows = order[start:start + size]
                if method.teacher is None:
                    losses.append(self.learner.train(samples.observations[rows], samples.actions[rows],
                                                     samples.returns[rows]))
                else:
                    losses.append(self.learner.imitate(samples.observations[rows], samples.masks[rows],
                                                       samples.actions[rows]))
        self.counters.generation += 1
        return samples.hands, samples.decisions, float(np.mean(losses)) if losses else float("nan"), worker_cpu

    def checkpoint(self, evaluate: Callable[[str, bool], dict[str, Any]] | None) -> dict[str, Any] | None:
        """Write the checkpoint and the averaged weights (atomically), then evaluate them and append the result;
        ``evaluate(weights, confirm)`` plays the fixed evaluation deals, or with ``confirm`` the other fixed deals
        that confirm a new best (its ``confirmed`` entry)."""
        network = self.learner.network(averaged=True)
        self.counters.checkpoints += 1
        arrays = {**network.arrays(), **self.learner.state_arrays()}
        arrays.update({name: getattr(self.learner.network(), name) for name in LAYERS})  # the weights themselves
        write_checkpoint(self.out / CHECKPOINT_FILE, arrays, self.counters)
        save_network(network, self.out / WEIGHTS_FILE)
        if evaluate is None:
            return None
        started = time.process_time()
        result = evaluate(str(self.out / WEIGHTS_FILE))
        best = best_of([*read_evaluations(self.out), result]) is result
        if best:  # on deals no choice used: its fair score
            confirmed = evaluate(str(self.out / WEIGHTS_FILE), True)
            result["confirmed"] = {key: confirmed[key] for key in ("deals", "mean", "low", "high", "by_seats")
                                   if key in confirmed}
        result.update(generation=self.counters.generation, hands=self.counters.hands,
                      cpu_seconds=round(self.counters.cpu_seconds, 3),
                      eval_cpu_seconds=round(time.process_time() - started, 3), sha256=network.sha256())
        with open(self.out / EVALUATIONS_FILE, "a") as handle:
            handle.write(json.dumps(result) + "\n")
        if best:
            save_network(network, self.out / BEST_FILE)
        return result


def network_meta(method: Method) -> dict[str, Any]:
    """What the weights file says of itself: the game, the seat counts and options it was trained at, the seed."""
    return {"game": method.game, "seats": list(method.seats), "options": method.options, "seed": method.seed,
            "hidden": list(method.hidden),
            "method": "deep Monte-Carlo" if method.teacher is None else f"imitation of {method.teacher}"}


def save_network(network: QNetwork, path: Path) -> None:
    """Write ``network`` to ``path`` through a temporary file, so a reader never sees half a file."""
    temporary = path.with_name(path.name + ".tmp.npz")
    network.save(temporary)
    os.replace(temporary, path)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, flushed to disk first."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def write_checkpoint(path: Path, arrays: dict[str, np.ndarray], counters: Counters) -> None:
    """The weights, Adam's state and the counters in one ``.npz``, written atomically."""
    buffer = io.BytesIO()
    np.savez(buffer, counters=np.array(json.dumps(asdict(counters))), **arrays)
    write_atomically(path, buffer.getvalue())


def read_checkpoint(path: Path) -> tuple[dict[str, np.ndarray], Counters]:
    """The arrays and counters of a checkpoint; one line for a damaged file."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files if name != "counters"}
            counters = Counters(**json.loads(str(data["counters"])))
    except (OSError, KeyError, ValueError, TypeError) as error:
        raise TrainingError(f"checkpoint {str(path)!r} cannot be read ({error}): delete it to start over") from None
    return arrays, counters


def read_settings(out: Path) -> dict[str, Any] | None:
    """The training settings in ``out`` (None for a new or empty folder); one line for a folder of other things."""
    if out.exists() and not out.is_dir():
        raise TrainingError(f"--out {str(out)!r} is a file: give a folder for the training")
    path = out / SETTINGS_FILE
    if not path.exists():
        if out.exists() and any(out.iterdir()):
            raise TrainingError(f"--out {str(out)!r} is not empty and holds no training: give a new folder")
        return None
    try:
        settings = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise TrainingError(f"{str(path)!r} cannot be read ({error})") from None
    if not isinstance(settings, dict) or settings.get("kind") != KIND:
        raise TrainingError(f"{str(path)!r} is not a knorri-sim training's settings")
    return settings


def read_evaluations(out: Path) -> list[dict[str, Any]]:
    """Every evaluation a training folder holds, in order (a line cut short by a kill is skipped)."""
    path = out / EVALUATIONS_FILE
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def best_evaluation(out: Path) -> dict[str, Any] | None:
    """The evaluation with the highest mean difference against greedy (the latest among equals)."""
    return best_of(read_evaluations(out))


def best_of(evaluations: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Of ``evaluations`` in the order made, the one with the highest mean (the latest among equals; none undefined),
    among those scored as the latest was: a folder resumed from a training that scored its first seat count alone
    holds means of another kind."""
    kind = sorted(evaluations[-1].get("by_seats", {})) if evaluations else []
    rows = [row for row in evaluations
            if row.get("mean") == row.get("mean") and sorted(row.get("by_seats", {})) == kind]
    return max(reversed(rows), key=lambda row: row["mean"]) if rows else None


def jsonable(value: Any) -> Any:
    """``value`` as JSON gives it back (tuples as lists), so saved and new settings compare equal."""
    return json.loads(json.dumps(value))


def describe(method: Mapping[str, Any]) -> str:
    """A saved method in a few words, for messages."""
    seats = ",".join(str(seat) for seat in method.get("seats", []))
    return f"{method.get('game')} at {seats} seats, seed {method.get('seed')}"
