"""Playing cards and a simple sheet layout drawn in SVG itself: what every game's ``render.py`` draws with.

A card is a rounded rectangle with its rank and suit in text; a hidden card is a
patterned back. Nothing is loaded from elsewhere: no image files, no web fonts,
only the generic ``sans-serif`` family, so a drawing shows the same offline, in a
notebook and in the replay page. ``Sheet`` stacks the lines of a position (a
heading, rows of cards with a label, rows of badges) from top to bottom and
returns one ``<svg>`` document.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

from sim.cards import RANK_LETTERS, rank_of, suit_of

CARD_WIDTH, CARD_HEIGHT = 38, 54
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"  # clubs, diamonds, hearts, spades
RED_SUITS = (1, 2)
WIDTH = 900
MARGIN = 14
LABEL_WIDTH = 190  # the label column of a row of cards
STEP = 24  # how far apart the cards of a row sit when there is room
RAISE = 6  # how far a marked card (a legal play of the seat to move) stands above its row
NAME_CHARACTERS = 16  # of an agent's name beside its seat in a row's label; the page's title holds the whole lineup

# One stylesheet for every drawing: the classes are the same in each, so inline SVGs on one page agree.
STYLE = (
    "text{font-family:sans-serif;fill:#1d2330}"
    ".c rect{fill:#fff;stroke:#4a5060;stroke-width:1}"
    ".c.red text{fill:#c0262d}"
    ".c.mark rect{stroke:#e08a00;stroke-width:3}"
    ".r{font-size:13px;font-weight:bold}"
    ".s{font-size:22px}"
    ".b rect{fill:#2f5d8c;stroke:#1d3b5a}"
    ".b path{stroke:#8fb3d9;stroke-width:1;fill:none}"
    ".h{font-size:17px;font-weight:bold}"
    ".t{font-size:13px}"
    ".small{font-size:11px;fill:#4a5060}"
    ".turn{fill:#e08a00;font-weight:bold}"
    ".bg{fill:#f1f4f8}"
    ".badge rect{stroke:none}"
    ".badge text{font-size:12px;font-weight:bold;fill:#fff}"
)


def card_label(card: int) -> str:
    """A card's rank and suit as drawn: ``10♥``, ``Q♠``."""
    rank = RANK_LETTERS[rank_of(card)]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit_of(card)]


def suit_symbol(suit: int) -> str:
    """The suit's symbol, 0 clubs to 3 spades."""
    return SUIT_SYMBOLS[suit]


def card_face(x: float, y: float, card: int, marked: bool = False) -> str:
    """One card face up at ``(x, y)`` (its top-left corner); ``marked`` draws an orange edge."""
    classes = "c" + (" red" if suit_of(card) in RED_SUITS else "") + (" mark" if marked else "")
    rank = RANK_LETTERS[rank_of(card)]
    rank = "10" if rank == "T" else rank
    return (f'<g class="{classes}" transform="translate({x:g},{y:g})"><rect width="{CARD_WIDTH}" '
            f'height="{CARD_HEIGHT}" rx="4"/><text x="4" y="15" class="r">{rank}</text>'
            f'<text x="3" y="29" class="t">{SUIT_SYMBOLS[suit_of(card)]}</text>'
            f'<text x="{CARD_WIDTH - 4}" y="{CARD_HEIGHT - 7}" class="s" text-anchor="end">'
            f'{SUIT_SYMBOLS[suit_of(card)]}</text></g>')


def card_back(x: float, y: float) -> str:
    """One card face down at ``(x, y)``."""
    return (f'<g class="b" transform="translate({x:g},{y:g})"><rect width="{CARD_WIDTH}" height="{CARD_HEIGHT}" '
            f'rx="4"/><path d="M5 5H33V49H5Z M5 5L33 49 M33 5L5 49"/></g>')


def text(x: float, y: float, words: str, css: str = "t", anchor: str = "start") -> str:
    """A line of text (escaped) with one of the stylesheet's classes."""
    end = "" if anchor == "start" else f' text-anchor="{anchor}"'
    return f'<text x="{x:g}" y="{y:g}" class="{css}"{end}>{escape(words)}</text>'


def seat_label(seat: int, names: Sequence[str] | None = None) -> str:
    """A seat's label in a drawing: ``seat 2``, or with the agent that sits there ``seat 2: greedy`` (a long name
    shortened with an ellipsis, so the label stays in its column)."""
    if not names or seat >= len(names) or not names[seat]:
        return f"seat {seat}"
    name = str(names[seat])
    shown = name if len(name) <= NAME_CHARACTERS else name[:NAME_CHARACTERS - 1] + "\u2026"
    return f"seat {seat}: {shown}"


def legal_cards(cards: Sequence[int], legal: Sequence[int]) -> list[int]:
    """The cards of a row that the seat to move may play: the legal ids that are cards of that row (a pick-up, a
    knock or a choice of trumps is no card and marks none)."""
    allowed = set(legal)
    return [card for card in cards if card in allowed]


def badge(x: float, y: float, words: str, colour: str) -> tuple[str, float]:
    """A coloured label with white text at ``(x, y)``; returns it and its width."""
    width = 12 + 7.2 * len(words)
    return (f'<g class="badge" transform="translate({x:g},{y:g})"><rect width="{width:g}" height="20" rx="10" '
            f'fill={quoteattr(colour)}/><text x="{width / 2:g}" y="14" text-anchor="middle">{escape(words)}'
            f'</text></g>', width)


def row_step(count: int, room: float) -> float:
    """How far apart ``count`` cards sit to fit in ``room`` pixels (``STEP`` when they fit)."""
    if count <= 1:
        return STEP
    return max(6.0, min(STEP, (room - CARD_WIDTH) / (count - 1)))


class Sheet:
    """A drawing built top to bottom: each method adds one line of the position at the next free height."""

    def __init__(self, width: int = WIDTH) -> None:
        self.width = width
        self.parts: list[str] = []
        self.y = MARGIN

    def heading(self, words: str, note: str = "") -> None:
        """The drawing's title line, with a smaller note beside it."""
        self.parts.append(text(MARGIN, self.y + 16, words, "h"))
        if note:
            self.parts.append(text(self.width - MARGIN, self.y + 16, note, "small", "end"))
        self.y += 28

    def line(self, words: str, css: str = "t") -> None:
        """A line of text."""
        self.parts.append(text(MARGIN, self.y + 14, words, css))
        self.y += 22

    def badges(self, items: Sequence[tuple[str, str]], label: str = "") -> None:
        """A row of badges ``(words, colour)``, after an optional label."""
        x = MARGIN
        if label:
            self.parts.append(text(x, self.y + 15, label))
            x = MARGIN + LABEL_WIDTH
        for words, colour in items:
            drawn, width = badge(x, self.y, words, colour)
            self.parts.append(drawn)
            x += width + 8
        self.y += 28

    def cards(self, label: str, cards: Sequence[int] = (), hidden: int = 0, note: str = "", to_move: bool = False,
              marked: Sequence[int] = (), shaded: bool = False) -> None:
        """A labelled row: ``cards`` face up (those in ``marked`` edged and raised), then ``hidden`` backs, then a
        note.

        ``to_move`` draws the label as the seat whose turn it is; ``shaded`` puts a band behind the row.
        """
        top = self.y
        if shaded:
            self.parts.append(f'<rect class="bg" x="{MARGIN / 2:g}" y="{top - 3:g}" width="{self.width - MARGIN:g}" '
                              f'height="{CARD_HEIGHT + 6}" rx="6"/>')
        self.parts.append(text(MARGIN, top + 20, ("\u25b6 " if to_move else "") + label,
                               "t turn" if to_move else "t"))
        if note:
            self.parts.append(text(MARGIN, top + 38, note, "small"))
        count = len(cards) + hidden
        room = self.width - MARGIN - LABEL_WIDTH - MARGIN
        step = row_step(count, room)
        x = MARGIN + LABEL_WIDTH
        chosen = set(marked)
        for card in cards:
            self.parts.append(card_face(x, top - RAISE if card in chosen else top, card, card in chosen))
            x += step
        for _ in range(hidden):
            self.parts.append(card_back(x, top))
            x += step
        if not count:
            self.parts.append(text(x, top + 32, "(no cards)", "small"))
        self.y += CARD_HEIGHT + 10

    def groups(self, label: str, groups: Sequence[tuple[str, Sequence[int]]], empty: str = "(empty)") -> None:
        """A labelled row of card groups, each with a caption above it (a trick's plays in order)."""
        top = self.y
        self.parts.append(text(MARGIN, top + 34, label))
        x = MARGIN + LABEL_WIDTH
        cards = sum(max(1, len(cards)) for _, cards in groups)
        room = self.width - MARGIN - LABEL_WIDTH - MARGIN - 14 * len(groups)
        step = row_step(cards, room) if cards else STEP
        for caption, cards_of in groups:
            self.parts.append(text(x, top + 11, caption, "small"))
            for card in cards_of:
                self.parts.append(card_face(x, top + 15, card))
                x += step
            if not cards_of:
                self.parts.append(f'<rect x="{x:g}" y="{top + 15}" width="{CARD_WIDTH}" height="{CARD_HEIGHT}" '
                                  'rx="4" fill="none" stroke="#8a90a0" stroke-dasharray="4 3"/>')
                x += step
            x += CARD_WIDTH - step + 14
        if not groups:
            self.parts.append(text(x, top + 34, empty, "small"))
        self.y += CARD_HEIGHT + 24

    def svg(self, title: str) -> str:
        """The whole drawing as one SVG document (``title`` is its accessible name)."""
        height = self.y + MARGIN
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height:g}" '
                f'viewBox="0 0 {self.width} {height:g}" role="img"><title>{escape(title)}</title>'
                f'<style>{STYLE}</style><rect width="100%" height="100%" fill="#fbfcfd"/>'
                + "".join(self.parts) + "</svg>")
