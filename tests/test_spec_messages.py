"""Messages that do not surprise: they say where agent specs came from, refuse empty pieces, and quote CPU
seconds for compiling."""

from __future__ import annotations

from experiments.analysis.reports import run_names
from experiments.cli import main
from experiments.runner.compiling import compile_notice
from experiments.runner.storage import read_manifest


def test_messages_say_where_specs_came_from_refuse_empty_pieces_and_quote_cpu_seconds(tmp_path, monkeypatch,
                                                                                          capsys):
    monkeypatch.chdir(tmp_path)
    # (--seats alone seats the default config's lineup for that count: tests/test_seat_count_lineups.py)
    # a trailing colon, and an empty piece between separators, are refused, the piece named
    assert main(["play", "--agents", "random:"]) == 2
    assert "agent spec 'random:': nothing follows a ':'" in capsys.readouterr().err
    assert main(["play", "--agents", "random;;greedy;random"]) == 2
    assert "piece 2 of 4 (split at ';') is empty" in capsys.readouterr().err
    # the compile notice quotes measured CPU seconds and says that load matters
    notice = compile_notice({"agents.knorri.lineup": 23.0})
    assert "23 s of CPU" in notice and "loaded" in notice
    # a run configured on the command line is not called the default in its manifest or its report
    assert main(["run", "--seats", "3", "--agents", "random", "--hands", "6", "--out", "b", "--workers", "1",
                 "--no-progress"]) == 0
    manifest = read_manifest(tmp_path / "b")
    assert manifest["config"]["name"] == "command line"
    assert "(default)" not in run_names([manifest]) and "(command line)" in run_names([manifest])
