"""``knorri-sim play``: play one hand, game or match between agents and print it for a person.

Knorri (the default) plays one hand, or a match with ``--hands``; Knockout Whist
(``--game knockout-whist``) one game; Kort (``--game kort``) one match. The seed is
the one a run's ``seed`` column holds, and agents are reset as the runner resets
them, so ``play`` with a row's seed and lineup replays that row.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from experiments.errors import UsageError
from experiments.runner.config import split_agent_specs
from experiments.runner.seating import build_agent
from sim import games
from sim.cards import SUIT_LETTERS, card_text
from sim.reference_base import ReferenceGame
from sim.seating import SeatedAgent, play_guarded, play_with_agents

MAX_SEED = 1 << 64
MAX_HANDS = 10_000  # play prints a match hand by hand; longer runs are for knorri-sim run
DEFAULT_SEATS = {"knorri": 4, "knockout-whist": 4, "kort": 4}
CARD_KEYS = ("card", "turned")  # event keys holding one card id (Knockout Whist and Kort logs)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``play``."""
    parser.add_argument("--game", choices=list(games.GAMES), default=games.DEFAULT_GAME,
                        help="which game (default knorri): a Knorri hand, a Knockout Whist game or a Kort match")
    parser.add_argument("--seats", type=int, default=None,
                        help="seats at the table: 3 to 6 for Knorri, 2 to 7 for Knockout Whist, 4 for Kort "
                             "(default 4)")
    parser.add_argument("--seed", type=int, default=0, help="the deal's seed, 0 to 2**64 - 1 (default 0): a run's "
                        "seed column replays that row")
    parser.add_argument("--first", type=int, default=None, help="Knorri: the seat that turns first (default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="Knockout Whist or Kort: a game option, e.g. rainbow=true or target_wins=3 (repeatable)")
    parser.add_argument("--agents", default="random",
                        help="one agent spec for every seat, or one per seat separated by ';' or by commas "
                             "(as for run; default random)")
    parser.add_argument("--hands", type=int, default=1, help="Knorri: play a match of this many hands (default 1)")
    parser.add_argument("--json", action="store_true", help="print the public log as JSON lines instead")


def run(args: argparse.Namespace) -> int:
    """Check the options, play and print."""

    if not 0 <= args.seed < MAX_SEED:
        raise UsageError(f"--seed must be from 0 to 2**64 - 1 (a 64-bit seed), not {args.seed}")
    if args.hands < 1:
        raise UsageError(f"--hands: a match has at least one hand, not {args.hands}")
    if args.hands > MAX_HANDS:
        raise UsageError(f"--hands: a match played here has at most {MAX_HANDS:,} hands, not {args.hands:,} "
                         "(knorri-sim run plays more)")
    n_seats = DEFAULT_SEATS[args.game] if args.seats is None else args.seats
    if args.game == "knorri":
        return _knorri(args, n_seats)
    if args.hands != 1:
        raise UsageError(f"--hands is for Knorri matches; {games.game(args.game).title} plays one "
                         f"{games.adapter(args.game).ROW} per seed")
    if args.first is not None:
        raise UsageError("--first is for Knorri; " + ("in Knockout Whist seat 0 deals and seat 1 leads"
                                                      if args.game == "knockout-whist"
                                                      else "Kort's first trump holder is --option first_holder=SEAT"))
    deal = _new_deal(args.game, n_seats, args.seed, args.option)
    specs = _lineup(args.agents, n_seats)
    agents = _seated(specs, args.game, args.seed)
    play_guarded(lambda: play_with_agents(deal, agents, args.seed), agents,
                 f"the {games.adapter(args.game).ROW} with seed {args.seed}", _action_text(args.game))
    _print(deal, f"{games.game(args.game).title}, seed {args.seed}, agents: {'; '.join(specs)}", args.json,
           describe_event)
    if not args.json:
        print(f"end ({deal.end_reason.value}): scores {list(deal.scores)}")
    return 0


def _knorri(args: argparse.Namespace, n_seats: int) -> int:
    from sim.knorri.describe import describe_event as describe_knorri_event
    from sim.knorri.describe import describe_result
    from sim.knorri.match import play_match
    from sim.knorri.reference import KnorriHand, check_seats

    if args.option:
        raise UsageError("--option is for Knockout Whist and Kort; Knorri has no options")
    n_seats = check_seats(n_seats)
    specs = _lineup(args.agents, n_seats)
    agents = _seated(specs, "knorri", args.seed)
    if args.hands > 1:
        if args.first not in (None, 0):
            raise UsageError("--first applies to a single hand: a match opens at seat 0 and then after each loser")
        result = play_guarded(lambda: play_match(n_seats, args.hands, args.seed, agents), agents,
                              f"the match with seed {args.seed}", _action_text("knorri"))
        for index, hand in enumerate(result.hands):
            print(f"hand {index + 1}: {describe_result(hand)}")
        print(f"totals {result.totals}; winner(s): {', '.join(f'seat {s}' for s in result.winners)}")
        return 0
    first = args.first or 0
    if not 0 <= first < n_seats:
        raise UsageError(f"--first must be a seat from 0 to {n_seats - 1}, not {first}")
    hand = KnorriHand.from_seed(n_seats, args.seed, first)
    play_guarded(lambda: play_with_agents(hand, agents, args.seed), agents,
                 f"the hand with seed {args.seed} (first seat {first})", _action_text("knorri"))
    _print(hand, f"Knorri, seed {args.seed}, agents: {'; '.join(specs)}", args.json,
           describe_knorri_event)
    if not args.json:
        print(describe_result(hand))
    return 0


def _seated(specs: list[str], game: str, seed: int) -> list[SeatedAgent]:
    """The lineup's agents, each named when it fails (a constructor that raises is one spec error line)."""
    return [SeatedAgent(build_agent(spec, game, seed=seed), spec, None) for spec in specs]


def _action_text(game: str) -> Any:
    """The game's words for an action id (its adapter's ``action_text``), for a failing agent's message."""
    return games.adapter(game).action_text


def _lineup(text: str, n_seats: int) -> list[str]:
    """One spec per seat from ``--agents`` (one spec fills every seat)."""

    specs = split_agent_specs(text)
    if len(specs) == 1:
        specs *= n_seats
    if len(specs) != n_seats:
        raise UsageError(f"--agents gives {len(specs)} specs for {n_seats} seats: give one, or one per seat")
    return specs


def _new_deal(game: str, n_seats: int, seed: int, options: list[str]) -> ReferenceGame:
    """The reference engine's game dealt from ``seed``, as the runner deals a row with that seed."""

    if game == "knockout-whist":
        from sim.knockout_whist.encoding import parse_options
        from sim.knockout_whist.reference import KnockoutWhistGame

        if any(setting.partition("=")[0].strip() == "players" for setting in options):
            raise UsageError("the number of players is set by --seats, not --option players=...")
        return KnockoutWhistGame(parse_options([f"players={n_seats}", *options]), seed=seed)
    from sim.kort.encoding import NUM_SEATS, parse_options
    from sim.kort.reference import KortMatch

    if n_seats != NUM_SEATS:
        raise UsageError(f"Kort is always played by {NUM_SEATS} seats, not {n_seats}")
    return KortMatch(parse_options(options), seed=seed)


def _print(deal: ReferenceGame, title: str, as_json: bool, describe: Any) -> None:
    if as_json:
        for event in deal.log:
            print(json.dumps(event))
        return
    print(title)
    for event in deal.log:
        print(describe(event))


def describe_event(event: dict[str, Any]) -> str:
    """A Knockout Whist or Kort log event as one line: its kind, then its fields, cards and suits by name."""
    words = []
    for key, value in event.items():
        if key == "kind":
            continue
        if key in CARD_KEYS and isinstance(value, int):
            value = card_text(value)
        elif key == "suit" and isinstance(value, int):
            value = SUIT_LETTERS[value] if 0 <= value < len(SUIT_LETTERS) else "none"
        elif key == "plays":
            value = " ".join(f"{seat}:{card_text(card) if 0 <= card < 52 else 'knock'}" for seat, card in value)
        words.append(f"{key}={value}")
    indent = "  " if event["kind"] in ("play", "knock", "declare") else ""
    return f"{indent}{event['kind']}: " + ", ".join(words)
