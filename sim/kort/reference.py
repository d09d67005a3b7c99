"""The reference engine for a whole match of Kort: plain Python, written to be read against the rules.

A match deals each round from a fresh permutation in stages (five cards to the
holder, the trump choice, then the rest), hands every decision (trump, lead or
redeal, declaration, follow, Bavan vote) to its seat, applies the automatic
declarations itself, ends a round at 7 tricks (or 13 in Bavan, or at once when
Trop to the end or Bavan fails), moves the trump holder and stops at the
match's target. It keeps a public event log and a record per round, as
``seeds/kort.md`` describes.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from sim.cards import bit, card_list, suit_of
from sim.errors import GameInputError, check_deck
from sim.kort import rules
from sim.kort.encoding import (
    BAVAN_YES,
    FIRST_PACKET,
    FREE,
    NUM_ACTIONS,
    NUM_SEATS,
    REDEAL,
    SAR,
    TROP,
    TROP_TO_END,
    TRUMP_13,
    TRUMP_ACTIONS,
    VOTE_ACTIONS,
    LeadState,
    MatchEnd,
    Options,
    OptionsLike,
    Phase,
    Result,
    TrumpLead,
    parse_options,
)
from sim.kort.observation import KortObservation
from sim.reference_base import DeckSource, ReferenceGame
from sim.rng import SplitMix64

DECLARATION_WORDS = {SAR: "sar", TROP: "trop", TROP_TO_END: "trop_to_end"}


def as_options(options: OptionsLike) -> Options:
    """``Options`` from an ``Options``, a mapping of names to values, or None for the defaults."""
    return parse_options(() if options is None else options)


class KortMatch(ReferenceGame):
    """One match of Kort, from the first deal to the team that reaches the target."""

    UNIT = "match"
    NUM_ACTIONS = NUM_ACTIONS
    RENDER = "sim.kort.render"
    n_seats = NUM_SEATS  # always four, in two teams; named like the other games' seat counts
    COPIED = ("wins", "rounds", "log", "decisions", "scores", "deck", "hands", "trick", "tricks", "lead_states",
              "declarations")

    def __init__(self, options: OptionsLike = None, seed: int = 0, deck_source: DeckSource | None = None) -> None:
        """A match with ``options`` (default: to 7 wins, seat 0 holding first), dealt from ``seed``.

        Every deck (each round's, each redeal's) comes from ``deck_source`` when given,
        else from a splitmix64 stream started at ``seed``. ``clone()`` copies a source
        that is a bound method of an object (like ``SplitMix64(seed).shuffled_deck``);
        a plain function is shared.
        """
        self._setup(as_options(options), deck_source or SplitMix64(seed).shuffled_deck)
        self._start_round(self.options.first_holder)

    @classmethod
    def at_round(
        cls,
        options: OptionsLike,
        holder: int,
        deck_source: DeckSource,
        wins: Sequence[int] = (0, 0),
        round_no: int = 0,
    ) -> KortMatch:
        """A match that starts at the deal of round ``round_no`` with ``holder`` and the teams' ``wins``,
        so a rule can be shown without playing up to it. A start the rules could not reach is refused."""
        match = object.__new__(cls)
        match._setup(as_options(options), deck_source)
        if not isinstance(holder, int) or not 0 <= holder < NUM_SEATS:
            raise GameInputError(f"the holder is a seat 0 to {NUM_SEATS - 1}, not {holder}")
        target = match.options.target_wins
        if len(wins) != 2 or any(not isinstance(w, int) or not 0 <= w < target for w in wins):
            raise GameInputError(f"a match in progress has two teams' wins, each 0 to {target - 1}, not {list(wins)}")
        if not isinstance(round_no, int) or round_no < 0:
            raise GameInputError(f"a round number is 0 or more, not {round_no}")
        match.wins = list(wins)
        match.round_no = round_no
        match._start_round(holder)
        return match

    def _setup(self, options: Options, deck_source: DeckSource) -> None:
        self.options = options
        self._draw = deck_source
        self.wins = [0, 0]
        self.round_no = 0
        self.redeals = 0  # over the whole match
        self.rounds: list[dict[str, Any]] = []  # one record per finished round
        self.log: list[dict[str, Any]] = []
        self.decisions: list[int] = []
        self.winner_team: int | None = None
        self.end_reason: MatchEnd | None = None
        self.scores = [0] * NUM_SEATS

    # ----- what anyone may ask -----------------------------------------------------------

    @property
    def rounds_played(self) -> int:
        """Rounds finished so far."""
        return len(self.rounds)

    @property
    def led_suit(self) -> int | None:
        """The suit of the current trick's first card (None before it is led)."""
        return suit_of(self.trick[0][1]) if self.trick else None

    def legal_actions(self) -> list[int]:
        """The legal action ids for the seat to move, ascending (empty once the match has ended)."""
        phase = self.phase
        if phase == Phase.FOLLOW:
            return card_list(rules.follow_cards(self.hands[self._to_move], self.led_suit))
        if phase == Phase.LEAD:
            hand = self.hands[self._to_move]
            cards = card_list(rules.lead_cards(hand, self.trump, self.lead_states[rules.team_of(self._to_move)]))
            return cards + [REDEAL] if self.trick_no == 0 and rules.redeal_allowed(hand) else cards
        if phase == Phase.DECLARE:
            return list(self._declaration_choices)
        if phase == Phase.TRUMP:
            return list(TRUMP_ACTIONS)
        if phase == Phase.VOTE:
            return list(VOTE_ACTIONS)
        return []

    def observation(self, seat: int) -> KortObservation:
        """What ``seat`` may know: its own cards, everything public, its own Bavan vote and the public log."""
        return KortObservation(
            **self.seat_view(seat),
            team=rules.team_of(seat),
            options=self.options.to_dict(),
            round_no=self.round_no,
            deal_no=self.deal_no,
            holder=self.holder,
            phase=int(self.phase),
            trump=self.trump,
            trump_13=self.trump_choice == TRUMP_13,
            thirteenth=self.thirteenth,
            leader=self.leader,
            trick_no=self.trick_no,
            trick=tuple(self.trick),
            tricks=tuple(self.tricks),
            lead_states=tuple(state.text for state in self.lead_states),
            bavan_team=self.bavan_team,
            own_vote=self._votes.get(seat),
            wins=tuple(self.wins),
            winner_team=self.winner_team,
        )

    def record(self) -> dict[str, Any]:
        """The match's record: options, rounds played (each with its own record), redeals, wins, winner, scores."""
        return {
            "options": self.options.to_dict(),
            "rounds_played": self.rounds_played,
            "redeals": self.redeals,
            "wins": list(self.wins),
            "winner_team": self.winner_team,
            "scores": list(self.scores),
            "decisions": len(self.decisions),
            "rounds": [dict(r) for r in self.rounds],
        }

    def _finish_clone(self, twin: KortMatch) -> None:
        twin._votes = dict(self._votes)
        twin._draw = copy.deepcopy(self._draw)

    def _take(self, action: int) -> None:
        """Apply a legal action: follow, lead or redeal, declaration, trump choice or Bavan vote."""
        phase = self.phase
        if phase == Phase.FOLLOW:
            self._play(action)
        elif phase == Phase.LEAD:
            self._redeal() if action == REDEAL else self._lead(action)
        elif phase == Phase.DECLARE:
            self._declare(action)
        elif phase == Phase.TRUMP:
            self._choose_trump(action)
        else:
            self._vote(action)

    # ----- a round: the deal, trumps, redeal ------------------------------------------------

    def _start_round(self, holder: int, deal_no: int = 0) -> None:
        """Draw a deck, give the holder its first five cards and ask it for trumps."""
        self.holder = holder
        self.deal_no = deal_no
        self.deck = check_deck(self._draw())
        self.hands = [0] * NUM_SEATS
        self.hands[holder] = rules.holders_first_cards(self.deck)
        self.trump: int | None = None
        self.trump_choice: int | None = None
        self.thirteenth: int | None = None
        self.leader = holder
        self.trick: list[tuple[int, int]] = []
        self.trick_no = 0
        self.tricks = [0, 0]
        self.lead_states: list[LeadState] = [FREE, FREE]
        self.bavan_team: int | None = None
        self.declarations: list[dict[str, Any]] = []
        self._votes: dict[int, int] = {}
        self._voters: list[int] = []
        self._declaration_choices: list[int] = []
        self.phase = Phase.TRUMP
        self._to_move = holder
        self.log.append({"kind": "deal", "round": self.round_no, "deal": deal_no, "holder": holder,
                         "first_cards": FIRST_PACKET})

    def _choose_trump(self, action: int) -> None:
        """Fix trumps, then deal the rest: 5 to each other seat, then two passes of 4 from the holder."""
        self.trump_choice = action
        self.hands = rules.deal_hands(self.deck, self.holder)
        self.trump = rules.trump_of_choice(action, self.deck)
        self.log.append({"kind": "trump", "round": self.round_no, "seat": self.holder, "action": action,
                         "suit": self.trump})
        if action == TRUMP_13:
            self.thirteenth = rules.holders_thirteenth_card(self.deck)
            self.log.append({"kind": "thirteenth", "round": self.round_no, "seat": self.holder,
                             "card": self.thirteenth})
        self.phase = Phase.LEAD
        self._to_move = self.holder

    def _redeal(self) -> None:
        """Show the holder's 13 cards, then a new deal with the same holder; wins and round unchanged."""
        self.redeals += 1
        self.log.append({"kind": "redeal", "round": self.round_no, "seat": self.holder,
                         "cards": card_list(self.hands[self.holder])})
        self._start_round(self.holder, self.deal_no + 1)

    # ----- tricks --------------------------------------------------------------------------

    def _lead(self, card: int) -> None:
        """Lead a card; a fresh trump lead declares (automatically, or by asking the leader)."""
        seat = self._to_move
        team = rules.team_of(seat)
        hand_before = self.hands[seat]
        state = self.lead_states[team]
        self._put_card(seat, card)
        case = None
        if rules.is_fresh_trump_lead(card, self.trump, state):
            case = rules.classify_trump_lead(hand_before, self.trump, self.tricks[team], self.bavan_team == team)
        self.lead_states[team] = rules.state_after_lead(state, card, self.trump, case)
        if case == TrumpLead.CHOOSE:
            self._declaration_choices = rules.declaration_choices(hand_before, self.trump, self.trick_no == 0)
            self.phase = Phase.DECLARE
            return
        if case is not None:
            self._note_declaration(seat, case.word, automatic=True)
        self._next_in_trick()

    def _declare(self, action: int) -> None:
        seat = self._to_move
        self.lead_states[rules.team_of(seat)] = rules.state_after_declaration(action)
        self._note_declaration(seat, DECLARATION_WORDS[action], automatic=False)
        self._next_in_trick()

    def _note_declaration(self, seat: int, word: str, automatic: bool) -> None:
        event = {"kind": "declare", "round": self.round_no, "trick": self.trick_no, "seat": seat,
                 "declaration": word, "automatic": automatic}
        self.declarations.append({"trick": self.trick_no, "seat": seat, "declaration": word, "automatic": automatic})
        self.log.append(event)

    def _put_card(self, seat: int, card: int) -> None:
        self.hands[seat] &= ~bit(card)
        self.trick.append((seat, card))
        self.log.append({"kind": "play", "round": self.round_no, "trick": self.trick_no, "seat": seat, "card": card})

    def _play(self, card: int) -> None:
        self._put_card(self._to_move, card)
        if len(self.trick) < NUM_SEATS:
            self._next_in_trick()
        else:
            self._end_trick()

    def _next_in_trick(self) -> None:
        self.phase = Phase.FOLLOW
        self._to_move = rules.next_seat(self.trick[-1][0])

    def _end_trick(self) -> None:
        """Score the trick, move the leading team's lead state, then end the round or start the next trick."""
        winner = rules.trick_winner(self.trick, self.trump)
        team = rules.team_of(winner)
        self.tricks[team] += 1
        leading_team = rules.team_of(self.leader)
        self.lead_states[leading_team], trop_failed = rules.state_after_trick(
            self.lead_states[leading_team], team == leading_team, self.hands[winner], self.trump)
        self.log.append({"kind": "trick", "round": self.round_no, "no": self.trick_no, "leader": self.leader,
                         "plays": [list(play) for play in self.trick], "winner": winner, "tricks": list(self.tricks),
                         "states": [state.text for state in self.lead_states]})
        self.trick = []
        self.trick_no += 1
        if trop_failed:
            self._end_round(Result.TROP_FAILED, team)
            return
        result = rules.round_result(self.tricks, team, self.bavan_team)
        if result is not None:
            self._end_round(result, team)
            return
        if rules.seven_nil(self.tricks, team, self.bavan_team):
            self._voters = rules.bavan_voters(winner)
            self.phase = Phase.VOTE
            self._to_move = winner
            return
        self.leader = winner
        self.phase = Phase.LEAD
        self._to_move = winner

    # ----- 7:0 and Bavan ------------------------------------------------------------------------

    def _vote(self, action: int) -> None:
        """Record a vote; once both are cast, Bavan starts (both yes) or the 7:0 counts as Kort or At-kort."""
        seat = self._to_move
        self._votes[seat] = action
        if len(self._votes) < len(self._voters):
            self._to_move = self._voters[len(self._votes)]
            return
        team = rules.team_of(seat)
        bavan = all(vote == BAVAN_YES for vote in self._votes.values())
        self.log.append({"kind": "bavan_vote", "round": self.round_no, "team": team,
                         "votes": [[s, self._votes[s]] for s in self._voters], "bavan": bavan})
        if not bavan:
            self._end_round(rules.seven_nil_result(team, self.holder), team)
            return
        self.bavan_team = team
        self.leader = self._voters[0]  # the winner of trick 7 leads trick 8
        self.phase = Phase.LEAD
        self._to_move = self.leader

    # ----- the end of a round and of the match ------------------------------------------------

    def _end_round(self, result: Result, trick_team: int) -> None:
        team = rules.result_team(result, trick_team, self.holder, self.bavan_team)
        gained = rules.result_wins(result)
        self.wins[team] += gained
        record = {
            "round": self.round_no, "result": result.word, "team": team, "wins": gained, "tricks": list(self.tricks),
            "holder": self.holder, "trump": self.trump, "trump_13": self.trump_choice == TRUMP_13,
            "declarations": list(self.declarations), "redeals": self.deal_no, "bavan": self.bavan_team is not None,
            "score": list(self.wins),
        }
        self.rounds.append(record)
        self.log.append({"kind": "round_end", **record})
        self.phase = Phase.OVER
        self._to_move = -1
        winner = rules.match_winner(self.wins, self.options.target_wins)
        if winner is not None:
            self.winner_team = winner
            self.end_reason = MatchEnd.TARGET_REACHED
            self.scores = rules.match_scores(winner)
            self.log.append({"kind": "match_end", "winner_team": winner, "wins": list(self.wins),
                             "rounds": self.rounds_played, "redeals": self.redeals, "scores": list(self.scores)})
            return
        self.round_no += 1
        self._start_round(rules.next_holder(self.holder, team))
