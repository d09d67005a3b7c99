"""The rl package is packaged with its extra (nothing below rl imports it: the import contract, test_layers)."""

from __future__ import annotations

import re
import tomllib

from conftest import ROOT


def test_rl_is_packaged_and_in_the_test_extra():
    text = (ROOT / "pyproject.toml").read_text()
    project = tomllib.loads(text)["project"]
    own = [spec for spec in project["optional-dependencies"]["test"] if spec.startswith("knorri-sim[")]
    assert '"rl*"' in text and own and "rl" in re.split(r"[\[\],]", own[0])
    assert all(name in text for name in ('"pettingzoo>=', '"gymnasium>=', '"open_spiel>='))
