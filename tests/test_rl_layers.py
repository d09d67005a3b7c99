"""The rl package sits above agents: nothing in sim or agents imports it (imports flow rl -> agents -> sim)."""

from __future__ import annotations

import re

from conftest import ROOT


def test_nothing_below_rl_imports_it():
    importing = [path.relative_to(ROOT).as_posix() for package in ("sim", "agents")
                 for path in (ROOT / package).rglob("*.py")
                 if re.search(r"^\s*(from rl[. ]|import rl\b)", path.read_text(), flags=re.M)]
    assert importing == []


def test_rl_is_packaged_and_in_the_test_extra():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"rl*"' in text and '"knorri-sim[rl]"' in text
    assert all(name in text for name in ('"pettingzoo>=', '"gymnasium>=', '"open_spiel>='))
