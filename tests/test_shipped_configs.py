"""A shipped config is run by its name and listed with its summary."""

from __future__ import annotations

from experiments.cli import main
from experiments.runner.config import CONFIG_DIR, config_path, config_summary, shipped_configs
from experiments.runner.storage import read_manifest


def test_a_shipped_config_is_run_by_its_name_and_listed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # outside the repository: the name finds the installed file
    assert main(["run", "--list-configs"]) == 0
    listed = capsys.readouterr().out.splitlines()
    shipped = shipped_configs()
    assert {"default", "seat_counts", "kort"} <= set(shipped)
    for name, path in shipped.items():
        assert any(line.split()[0] == name and config_summary(path) in line for line in listed)
    assert config_path("seat_counts") == CONFIG_DIR / "seat_counts.yaml"
    assert main(["run", "--config", "seat_counts", "--seats", "3", "--hands", "6", "--out", "out", "--workers", "1",
                 "--no-progress"]) == 0
    assert read_manifest(tmp_path / "out")["config"]["name"] == "seat_counts"
    capsys.readouterr()  # the run's own stderr (a compile notice on a first run after an edit) is not the refusal's
    assert main(["run", "--config", "seat_count"]) == 2
    err = capsys.readouterr().err
    assert "no shipped config has that name" in err and "seat_counts" in err and err.count("\n") == 1
