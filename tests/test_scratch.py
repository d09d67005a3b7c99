"""A notebook's sample runs go into scratch folders that its process removes when it exits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def test_a_scratch_folder_lives_while_its_process_runs_and_is_gone_when_it_exits(tmp_path):
    made = subprocess.run([sys.executable, "-c", (
        "import tempfile; tempfile.tempdir = " + repr(str(tmp_path)) + "\n"
        "from experiments.analysis.scratch import scratch_folder\n"
        "folder = scratch_folder('knorri-sample-')\n"
        "(folder / 'run').mkdir(); (folder / 'run' / 'rows.parquet').write_bytes(b'x')\n"
        "print(folder, (folder / 'run' / 'rows.parquet').exists())\n")],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=True)
    folder, existed = made.stdout.split()
    assert existed == "True" and Path(folder).parent == tmp_path and Path(folder).name.startswith("knorri-sample-")
    assert not Path(folder).exists()
