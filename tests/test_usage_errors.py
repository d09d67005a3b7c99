"""The command line's errors: one line naming the program once, the games named in the help, configs refused
by kind, and a progress bar that counts whole rows."""

from __future__ import annotations

import pytest
from tqdm import tqdm

from experiments.cli import main
from experiments.runner.execute import scaled_counts

# ----- the command line ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("words", "help_command"), [
    (["nope"], "knorri-sim --help"), (["run", "--bogus"], "knorri-sim --help"),
    (["run", "--hands", "x"], "knorri-sim run --help"),
])
def test_usage_errors_name_the_program_once(words, help_command, capsys):
    with pytest.raises(SystemExit) as stop:
        main(words)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "knorri-sim knorri-sim" not in err and f"(see '{help_command}')" in err


@pytest.mark.parametrize("words", [["--help"], ["report", "--help"], ["play", "--help"]])
def test_help_names_kort(words, capsys):
    with pytest.raises(SystemExit):
        main(words)
    assert "Kort" in " ".join(capsys.readouterr().out.split())


def test_a_json_config_is_refused_in_one_line_naming_the_file_once(tmp_path, capsys):
    config = tmp_path / "exp.json"
    config.write_text('{"hands": 4}')
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count(str(config)) == 1 and "use a .toml, .yaml or .yml file" in err and err.count("\n") == 1


@pytest.mark.parametrize(("total", "done", "shown"), [(24, 8, "8/24"), (1_000_000, 250_000, "250k/1.00M")])
def test_a_small_progress_bar_counts_whole_rows(total, done, shown):
    meter = tqdm.format_meter(done, total, 1.0, unit="hand", unit_scale=scaled_counts(total))
    assert f"| {shown} [" in meter
