"""The rl package is packaged with its extra (nothing below rl imports it: the import contract, test_layers)."""

from __future__ import annotations

from conftest import ROOT


def test_rl_is_packaged_and_in_the_test_extra():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"rl*"' in text and '"knorri-sim[rl]"' in text
    assert all(name in text for name in ('"pettingzoo>=', '"gymnasium>=', '"open_spiel>='))
