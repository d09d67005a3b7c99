"""The render facet: every built-in game draws each position as SVG that parses, drawn with nothing from outside,
an analyst seeing the whole deal and a seat only its own cards; engines show themselves in a notebook."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from conftest import play_out_by_protocol, protocol_decisions

from sim import games
from sim.contract import renderer
from sim.errors import GameInputError
from sim.rng import SplitMix64

BUILT_IN = ("knorri", "knockout-whist", "kort")
SVG = "{http://www.w3.org/2000/svg}"


def dealt(game: str, seed: int = 11):
    """A fresh deal of ``game`` at its default seats."""
    adapter = games.adapter(game)
    return adapter, adapter.deal(adapter.DEFAULT_SEATS, seed, adapter.check_options({}))


def assert_self_contained_svg(svg: str) -> ET.Element:
    """The SVG parses as XML, is one <svg> document, and refers to nothing outside itself."""
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    assert "href" not in svg and "url(" not in svg and "@import" not in svg
    assert re.findall(r"https?://[^\"' )]+", svg) == ["http://www.w3.org/2000/svg"]
    return root


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_position_is_drawn_as_svg_that_parses(game):
    adapter, deal = dealt(game)
    draw = renderer(adapter)
    drawn = 0
    for position in protocol_decisions(deal, SplitMix64(5), every=9):
        assert_self_contained_svg(draw.render_svg(position))
        assert_self_contained_svg(draw.render_svg(position, seat=position.to_move))
        drawn += 1
    root = assert_self_contained_svg(draw.render_svg(deal))
    words = " ".join(root.itertext())
    assert drawn > 3 and f"end ({deal.end_reason.value})" in words


@pytest.mark.parametrize("game", BUILT_IN)
def test_a_seat_sees_only_its_own_cards_face_up(game):
    adapter, deal = dealt(game)
    for position in protocol_decisions(deal, SplitMix64(8)):
        if len(position.decisions) == 12:
            break
    seat = position.to_move
    counts = position.card_counts()
    backs = adapter.render_svg(position, seat=seat).count('class="b"')
    assert backs == sum(counts) - counts[seat]
    assert adapter.render_svg(position).count('class="b"') == 0  # the analyst sees every card


@pytest.mark.parametrize("game", BUILT_IN)
def test_an_engine_shows_itself_in_a_notebook(game):
    from IPython.core.formatters import DisplayFormatter

    adapter, deal = dealt(game)
    play_out_by_protocol(deal, SplitMix64(3))
    shown, _ = DisplayFormatter().format(deal)
    assert shown["image/svg+xml"] == adapter.render_svg(deal)


def test_a_seat_the_table_lacks_is_refused_in_one_line():
    adapter, deal = dealt("knorri")
    with pytest.raises(GameInputError, match="0 to 3, not 4"):
        adapter.render_svg(deal, seat=4)


def test_a_game_that_draws_no_positions_is_refused_in_one_line():
    with pytest.raises(GameInputError, match="Ten draws no positions: its adapter lacks render_svg, repeat_span"):
        renderer(SimpleNamespace(TITLE="Ten"))


@pytest.mark.parametrize("game", ["knockout-whist", "kort"])
def test_a_game_without_a_repeat_cut_off_marks_no_cycle(game):
    adapter, deal = dealt(game)
    assert adapter.repeat_span(play_out_by_protocol(deal, SplitMix64(2))) is None
