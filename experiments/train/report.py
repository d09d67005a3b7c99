"""``knorri-sim report DIR`` on a training folder: the learning curve and the model card.

The curve is every evaluation of the training (the network against ``greedy`` on the same fixed duplicate deals,
``evaluate.py``) against the training's CPU minutes, each with its 95% interval. The model card says what the
weights are and how they were made: the command, seed, hands, CPU time, library versions, the evaluations and the
weights' sha256; the same card goes beside shipped weights (``write_model_card``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from agents.learned.network import load
from experiments.analysis.figures import FONT, declare, new_figure
from experiments.train.loop import (
    BEST_FILE,
    CHECKPOINT_FILE,
    WEIGHTS_FILE,
    TrainingError,
    best_evaluation,
    read_checkpoint,
    read_evaluations,
    read_settings,
)
from sim import games


def is_training(folder: str | Path) -> bool:
    """Whether ``folder`` holds a training (its settings file), rather than a run."""
    try:
        return read_settings(Path(folder)) is not None
    except TrainingError:
        return False


def learning_curve_figure(evaluations: Sequence[Mapping[str, Any]], title: str) -> Figure:
    """Each evaluation's mean paired difference against greedy (points per row at the tested seat) with its 95%
    interval, against the training's CPU minutes when it was taken; a line at 0, where the network plays as
    greedy does. A training at several seat counts shows the mean over the counts, which chooses its best weights,
    with each count's own line beside it."""
    figure, (ax,) = new_figure(9, 5)
    evaluations, counts = scored_apart(evaluations)
    minutes = np.array([row["cpu_seconds"] / 60 for row in evaluations])
    mean = np.array([row["mean"] for row in evaluations])
    low = np.array([row["low"] for row in evaluations])
    high = np.array([row["high"] for row in evaluations])
    deals = evaluations[0]["deals"] if evaluations else 0
    n_text = f"n = {deals:,} duplicate deals per point" if evaluations else "no evaluations"
    opponent = evaluations[0]["opponent"] if evaluations else "greedy"
    others = evaluations[0]["others"] if evaluations else "random"
    extent = [0.0, *low[np.isfinite(low)], *high[np.isfinite(high)]]
    if counts:  # a training at several seat counts: each count's line beside the mean it is judged by
        n_text = f"n = {deals:,} duplicate deals per seat count and point"
        for n, colour in zip(counts, COUNT_COLOURS, strict=False):
            points = [(at, row["by_seats"][n]["mean"]) for at, row in zip(minutes, evaluations, strict=True)
                      if n in row["by_seats"]]
            ax.plot(*zip(*points, strict=True), "o--", color=colour, linewidth=1, markersize=3, label=f"{n} seats")
            extent += [value for _, value in points if np.isfinite(value)]
    facts = f"learned - {opponent}, others {others} ({n_text})"
    if evaluations:
        label = "the mean over the seat counts; bars: 95% interval" if counts else f"{facts}; bars: 95% interval"
        ax.errorbar(minutes, mean, yerr=[mean - low, high - mean], fmt="o-", color="#1b6ca8", capsize=3,
                    label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    pad = 0.05 * (max(extent) - min(extent) + 1e-9)
    ax.set_ylim(min(extent) - pad, max(extent) + pad)
    ax.set_xlim(0, max(float(minutes.max()) if len(minutes) else 1.0, 1e-3) * 1.05)
    units = "points per row"
    ax.set_xlabel("training CPU time (minutes, every resume summed)", fontsize=FONT["label"])
    ax.set_ylabel(f"mean paired difference ({units})", fontsize=FONT["label"])
    ax.set_title(title, fontsize=FONT["title"])
    ax.legend(fontsize=FONT["tick"], loc="best", title=facts if counts else None, title_fontsize=FONT["tick"])
    return declare(figure, title, units, n_text, "95% interval", "y from 0")


COUNT_COLOURS = ("#d95f02", "#7570b3", "#1b9e77", "#e7298a", "#66a61e", "#a6761d")
"""The lines of a training's seat counts, in order."""


def seat_counts(evaluations: Sequence[Mapping[str, Any]]) -> list[str]:
    """The seat counts a training's evaluations score apart (none for a training at one count), in order."""
    counts: dict[str, None] = {}
    for row in evaluations:
        counts.update(dict.fromkeys(row.get("by_seats", {})))
    return list(counts)


def scored_apart(evaluations: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[str]]:
    """A training's evaluations with its seat counts scored apart, and the counts (none for one count). A row from
    before a training at several counts was scored at each (``evaluate_tables``) holds its first count's score
    alone: it becomes that count's, with no mean over the counts."""
    counts = seat_counts(evaluations)
    if not counts:
        return list(evaluations), counts
    undefined = {"mean": math.nan, "low": math.nan, "high": math.nan}
    scored = []
    for row in evaluations:
        first = {key: row[key] for key in ("deals", "rows", "mean", "low", "high") if key in row}
        scored.append(row if "by_seats" in row else {**row, **undefined, "by_seats": {counts[0]: first}})
    return scored, counts


def curve_title(settings: Mapping[str, Any]) -> str:
    """The learning curve's title: the game and seat counts trained at."""
    method = settings["method"]
    title = games.adapter(method["game"]).TITLE
    seats = ",".join(str(seat) for seat in method["seats"])
    return f"Learning curve: {title} at {seats} seats against greedy"


def model_card(folder: Path, weights: Path | None = None) -> str:
    """The model card of a training's weights (its best evaluated ones by default) as Markdown."""
    settings = read_settings(folder)
    if settings is None:
        raise TrainingError(f"{str(folder)!r} holds no training")
    weights = weights or (folder / BEST_FILE if (folder / BEST_FILE).exists() else folder / WEIGHTS_FILE)
    method = settings["method"]
    _, counters = read_checkpoint(folder / CHECKPOINT_FILE) if (folder / CHECKPOINT_FILE).exists() else ({}, None)
    network = load(weights)
    evaluations = read_evaluations(folder)
    best = best_evaluation(folder)
    title = games.adapter(method["game"]).TITLE
    teacher = method.get("teacher")
    how = "Deep Monte-Carlo self-play" if teacher is None else f"imitating `{teacher}`'s choices"
    if teacher is None:
        recipe = (f"epsilon {method['epsilon']}, learning rate {method['learning_rate']}, engine policies at a seat: "
                  f"{opponent_words(method.get('opponents', {}))}")
    else:
        recipe = (f"imitation of `{teacher}` (cross-entropy over the legal actions), learning rate "
                  f"{method['learning_rate']}, {method.get('passes', 1)} passes a generation, the other agents at a "
                  f"seat: {opponent_words(method.get('teacher_opponents', {}))}")
        if method.get("student_share"):
            recipe += (f"; from the second generation a teacher seat plays the network's moves with chance "
                       f"{method['student_share']}, the teacher labelling them (DAgger)")
    lines = [f"# Model card: learned, {title}", "",
             f"A Q-network ({network.observation_size} inputs, hidden {network.w1.shape[1]} and "
             f"{network.w2.shape[1]}, {network.num_actions} outputs) trained by {how}.", "",
             "| fact | value |", "| --- | --- |",
             f"| command | `{settings.get('command') or '(not recorded)'}` |",
             f"| game, seats, options | {method['game']}, {', '.join(map(str, method['seats']))}, "
             f"{json.dumps(method['options'])} |",
             f"| seed | {method['seed']} |",
             f"| method | {recipe} |"]
    if counters is not None:
        lines += [f"| hands trained | {counters.hands:,} ({counters.decisions:,} decisions with a choice) |",
                  f"| training CPU time | {counters.cpu_seconds / 60:.1f} minutes ({counters.wall_seconds / 60:.1f} "
                  "wall) |"]
    versions = ", ".join(f"{name} {version}" for name, version in settings.get("versions", {}).items())
    lines += [f"| library versions | {versions} |",
              f"| weights | `{weights.name}`: the file's sha256 `{file_sha256(weights)}` (what `sha256sum` prints); "
              f"its arrays' `{network.sha256()}` (`load(path).sha256()`: the same weights saved again match it) |"]
    if best is not None:
        lines += [f"| these weights | the evaluation at {best['hands']:,} hands, "
                  f"{best['cpu_seconds'] / 60:.1f} CPU minutes |"]
        confirmed = best.get("confirmed")
        if confirmed:  # the chosen weights on deals no choice used; the evaluations below flatter the best of them
            by_count = "".join(f", {n} seats {part['mean']:+.3f}" for n, part in confirmed.get("by_seats", {}).items())
            lines += [f"| against greedy, on {confirmed['deals']} other deals | {confirmed['mean']:+.3f} a row, 95% "
                      f"interval {confirmed['low']:+.3f} to {confirmed['high']:+.3f} (deals no choice of weights "
                      f"used{'; the mean over the seat counts' + by_count if by_count else ''}) |"]
    evaluations, counts = scored_apart(evaluations)
    several = (f" With several seat counts each is scored on its own {evaluations[0]['deals']} deals, and a row's "
               "difference is the mean of the counts', the score its best weights are chosen by.") if counts else ""
    lines += ["", "## Evaluations", "",
              "Against greedy on the same fixed duplicate deals at each checkpoint (the duel's design: the tested "
              "seat at every rotation, once learned and once greedy): mean paired difference in points per row, "
              f"with its 95% interval.{several}", "",
              "| hands | CPU minutes | deals | others | learned - greedy | 95% interval |"
              + "".join(f" {n} seats |" for n in counts),
              "| ---: | ---: | ---: | --- | ---: | --- |" + " ---: |" * len(counts)]
    lines += [f"| {row['hands']:,} | {row['cpu_seconds'] / 60:.1f} | {row['deals']} | {row['others']} | "
              + (f"{row['mean']:+.3f} | {row['low']:+.3f} to {row['high']:+.3f} |" if row["mean"] == row["mean"]
                 else "- | - |")
              + "".join(f" {count_mean(row, n)} |" for n in counts) for row in evaluations]
    return "\n".join(lines) + "\n"


def count_mean(row: Mapping[str, Any], n: str) -> str:
    """One seat count's score in an evaluation row as ``scored_apart`` gives it (a dash where the row has none:
    taken before counts were scored apart)."""
    part = row["by_seats"].get(n)
    return f"{part['mean']:+.3f}" if part else "-"


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def opponent_words(opponents: Mapping[str, float]) -> str:
    """A training's opponent chances in words: ``greedy 30%, random 20%`` (the rest: the network)."""
    return ", ".join(f"{name} {chance:.0%}" for name, chance in opponents.items()) or "none (pure self-play)"


def write_training_report(folder: Path, out: Path) -> list[Path]:
    """Draw the learning curve and write the model card (``report.md``) into ``out``; return what was written."""
    settings = read_settings(folder)
    if settings is None:
        raise TrainingError(f"{str(folder)!r} holds no training")
    if not (folder / WEIGHTS_FILE).exists():
        raise TrainingError(f"{str(folder)!r} has no checkpoint yet: its training has not reached one")
    out.mkdir(parents=True, exist_ok=True)
    curve = out / "learning_curve.png"
    learning_curve_figure(read_evaluations(folder), curve_title(settings)).savefig(curve)
    card = out / "report.md"
    card.write_text(model_card(folder) + "\n![The learning curve](learning_curve.png)\n")
    return [curve, card]
