"""``knorri-sim train --game G --seats N``: train a ``learned`` agent's network by self-play Deep Monte-Carlo.

The method, the checkpoints and the evaluation are ``experiments.train``'s. The same command on the same ``--out``
(or ``--resume``) continues from the last checkpoint; ``knorri-sim report DIR`` draws the learning curve and writes
the model card.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from agents.base import compiled_code, known_agents, resolve_spec
from experiments.commands.common import seat_count_list
from experiments.compile_notice import claim
from experiments.errors import UsageError
from experiments.runner import compiling
from experiments.train.tables import EVAL_OTHERS, SELF_PLAY_OPPONENTS, TEACHER_OPPONENTS, chances_text
from sim import games
from sim.contract import batch_code, check_seats, plural
from sim.errors import GameInputError
from sim.options import option_pairs

DESIGN = ("Deep Monte-Carlo, as in DouZero: a Q-network scores every action of a position from the seat's "
          "observation tensor, and is regressed on the final score of the seat that took it, from epsilon-greedy "
          "self-play on the game's compiled batch (a quarter of the deals against greedy). Every checkpoint is "
          "followed by an evaluation: the network against greedy on fixed duplicate deals, the mean paired "
          "difference with its 95% interval. --budget counts CPU minutes over every resume. Needs the train extra "
          "(pip install 'knorri-sim[train]'); playing the weights does not.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``train``."""
    parser.epilog = DESIGN
    parser.add_argument("--game", choices=tuple(games.names()), default=games.DEFAULT_GAME,
                        help=f"which game (default {games.DEFAULT_GAME})")
    parser.add_argument("--seats", metavar="N[,N...]", default=None,
                        help="seats at the table, or several counts taken in turn by generation (3,4,5,6): one "
                             "network plays them all (default: the game's default)")
    parser.add_argument("--budget", type=float, metavar="MINUTES", help="stop after this many CPU minutes in all")
    parser.add_argument("--hands", type=int, metavar="N", help="stop after this many hands (games, matches) in all")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the master seed (default 0)")
    parser.add_argument("--workers", type=int, default=1, metavar="W",
                        help="local processes playing the self-play shards (default 1)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="play the self-play shards on this Dask scheduler")
    parser.add_argument("--out", metavar="DIR", help="the training folder (default runs/train-<game>-<time>); "
                        "an existing one with the same options resumes")
    parser.add_argument("--resume", action="store_true", help="continue from --out's last checkpoint (the same "
                        "command on the same --out does too; --resume insists that there is one)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. cap=20000 (Knorri); repeatable")
    parser.add_argument("--checkpoint-minutes", type=float, default=5.0, metavar="M",
                        help="a checkpoint and an evaluation every M CPU minutes (default 5)")
    parser.add_argument("--checkpoint-hands", type=int, metavar="N",
                        help="a checkpoint every N hands instead (their places then depend on the seed alone)")
    parser.add_argument("--eval-deals", type=int, default=200, metavar="D",
                        help="duplicate deals of each evaluation against greedy (default 200)")
    parser.add_argument("--eval-others", metavar="SPEC", default=EVAL_OTHERS,
                        help=f"the agent at the seats an evaluation does not test (default {EVAL_OTHERS}); a table "
                             "where the tested seat decides more, e.g. greedy in Kort, whose random partners and "
                             "opponents hide even mcts's edge")
    parser.add_argument("--teacher", metavar="SPEC",
                        help="imitate this agent's choices (e.g. mcts) instead of Deep Monte-Carlo self-play: the "
                             "teacher plays the deals at some seats, greedy, random and loginf at the others, and the "
                             "network learns to pick what the teacher picked")
    parser.add_argument("--student-share", metavar="P", type=float, default=0.0,
                        help="with --teacher: from the second generation on, each teacher seat plays the network's "
                             "moves with chance P while the teacher still labels every position (DAgger), so the "
                             "network learns in the positions it reaches itself (default 0: the teacher plays)")
    parser.add_argument("--opponents", metavar="NAME=P[,NAME=P...]",
                        help="the table the network learns at: the chance of each other agent at a seat, e.g. "
                             "greedy=0.5,random=0.1 (the rest of the seats: the network in self-play, the teacher "
                             f"with --teacher; default {chances_text(SELF_PLAY_OPPONENTS)}, with --teacher "
                             f"{chances_text(TEACHER_OPPONENTS)}); self-play takes the game's engine policies only")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def run(args: argparse.Namespace) -> int:
    """Check the options, then train (or resume) until the budget or the hands are spent."""
    adapter = games.adapter(args.game)
    if adapter.LEARNING is None:
        raise UsageError(f"{adapter.TITLE} gives no learning facts (observation tensors): it cannot be trained")
    seats = seat_counts(adapter, args.seats)
    for name, value in (("--budget", args.budget), ("--checkpoint-minutes", args.checkpoint_minutes)):
        if value is not None and not value > 0:
            raise UsageError(f"{name} must be a positive number of minutes, not {value}")
    for name, value in (("--hands", args.hands), ("--checkpoint-hands", args.checkpoint_hands),
                        ("--workers", args.workers), ("--eval-deals", args.eval_deals)):
        if value is not None and value < 1:
            raise UsageError(f"{name} must be at least 1, not {value}")
    if args.seed < 0:
        raise UsageError(f"--seed must be a non-negative integer, not {args.seed}")
    if not 0.0 <= args.student_share <= 1.0:
        raise UsageError(f"--student-share is a chance from 0 to 1, not {args.student_share}")
    if args.student_share and args.teacher is None:
        raise UsageError("--student-share needs --teacher: it says how often the network plays a teacher's seats")
    opponents = table_opponents(adapter, args.game, args.opponents, args.teacher is not None)
    options = adapter.check_options(dict(option_pairs(args.option)))
    try:
        from experiments.train.learner import configure_threads
        configure_threads(args.workers if not args.scheduler else 1)
        import jax  # noqa: F401  (the train extra, checked before anything is written)
        import optax  # noqa: F401
    except ImportError:
        raise UsageError("knorri-sim train needs the train extra: pip install 'knorri-sim[train]' (JAX and optax); "
                         "playing trained weights does not") from None
    from experiments.train.loop import Limits, Method
    from experiments.train.run import train

    out = Path(args.out or f"runs/train-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}")
    teaching = {}
    if args.teacher is not None:
        teacher = resolve_spec(args.teacher, args.game)  # a spec that makes no agent is one line, before anything
        from experiments.train.imitation import IMITATION_PASSES, IMITATION_RATE

        teaching = {"teacher": str(teacher), "learning_rate": IMITATION_RATE, "passes": IMITATION_PASSES,
                    "student_share": args.student_share}
    if opponents is not None:
        teaching["teacher_opponents" if args.teacher is not None else "opponents"] = opponents
    eval_others = str(resolve_spec(args.eval_others, args.game))  # a spec that makes no agent: one line, now
    method = Method(args.game, seats, options, args.seed, eval_deals=args.eval_deals, eval_others=eval_others,
                    **teaching)
    limits = Limits(args.budget, args.hands, args.checkpoint_minutes, args.checkpoint_hands)
    command = shlex.join(["knorri-sim", "train", *sys.argv[2:]]) if sys.argv[1:2] == ["train"] else ""
    # on a Dask cluster the teacher's deals are played (and its agents compiled) on the workers' machines
    teacher_here = None if args.scheduler else args.teacher
    notice = claim(compiling.compile_notice(compiling.uncached(training_code(adapter, args.game, teacher_here,
                                                                            opponents))))
    training = train(out, method, limits, args.workers, args.scheduler, args.resume, command,
                     progress=not args.no_progress, announce=notice)
    counters = training.counters
    print(f"{out}: {counters.hands:,} {plural(adapter.ROW, counters.hands)}, {counters.decisions:,} decisions, "
          f"{counters.cpu_seconds / 60:.1f} CPU minutes of training, {counters.checkpoints} "
          f"{plural('checkpoint', counters.checkpoints)}; weights in {out / 'weights.npz'} "
          f"(play them with learned:weights={out / 'weights.npz'}); knorri-sim report {out} draws the curve")
    return 0


def training_code(adapter: object, game: str, teacher: str | None, opponents: dict[str, float] | None
                  ) -> dict[str, float]:
    """The compiled code a training runs (module: compile seconds): the batch engine and the network, which self-play
    and the evaluations step, and with a teacher the agents that play its deals on the reference engine."""
    code = {**batch_code(adapter), **compiled_code("learned", game, batch=True)}
    if teacher is not None:
        for spec in (teacher, *(opponents or TEACHER_OPPONENTS)):
            code.update(compiled_code(spec, game))
    return code


def table_opponents(adapter: object, game: str, text: str | None, teaching: bool) -> dict[str, float] | None:
    """The chances ``--opponents`` gives (``greedy=0.5,random=0.1``), checked: agents the game knows (its engine
    policies in self-play, where the compiled batch plays them), each chance from 0 to 1, together at most 1."""
    if text is None:
        return None
    allowed = sorted(known_agents(game)) if teaching else sorted(adapter.BATCH_POLICIES or {})
    where = "agents" if teaching else "engine policies for self-play"
    chances: dict[str, float] = {}
    for piece in text.split(","):
        name, _, value = piece.partition("=")
        name = name.strip()
        try:
            chance = float(value)
        except ValueError:
            raise UsageError(f"--opponents takes NAME=CHANCE pairs separated by commas (greedy=0.5,random=0.1), "
                             f"not {piece!r}") from None
        if name not in allowed:
            raise UsageError(f"--opponents: {name!r} is not one of {adapter.TITLE}'s {where}: "
                             f"{', '.join(allowed) or 'none'}")
        if not 0.0 <= chance <= 1.0 or name in chances:
            raise UsageError(f"--opponents: each agent once, with a chance from 0 to 1, not {piece!r}")
        chances[name] = chance
    if sum(chances.values()) > 1.0 + 1e-9:
        raise UsageError(f"--opponents: the chances add up to {sum(chances.values()):g}, more than 1")
    return chances


def seat_counts(adapter: object, text: str | None) -> tuple[int, ...]:
    """The seat counts ``--seats`` names (one, or several separated by commas), each checked for the game."""
    if text is None:
        return (adapter.DEFAULT_SEATS,)
    try:
        return tuple(check_seats(adapter, count) for count in seat_count_list(text))
    except GameInputError as error:
        raise UsageError(f"--seats: {error}") from None
