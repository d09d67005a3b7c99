"""Running the project's notebooks in a kernel of this interpreter, for the notebook tests (one file a game and one
of the shared notebooks, so the test workers share them)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
from conftest import ROOT
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NOTEBOOKS = ROOT / "notebooks"
KERNEL = "knorri-sim-test"


def make_kernel_dir(folder: Path, without: tuple[str, ...] = ()) -> Path:
    """A kernel spec in ``folder`` running this interpreter with the project importable, whatever is installed
    where; returns ``folder``. The modules named in ``without`` cannot be imported in the kernel (as in a Jupyter
    that lacks them: ``("ipywidgets",)``)."""
    spec = folder / KERNEL
    spec.mkdir()
    blocked = "".join(f"sys.modules[{name!r}] = None; " for name in without)
    launch = ["-c", f"import sys; {blocked}from ipykernel import kernelapp; kernelapp.launch_new_instance()"] \
        if without else ["-m", "ipykernel_launcher"]
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, *launch, "-f", "{connection_file}"],
        "display_name": "knorri-sim tests", "language": "python",
        "env": {"PYTHONPATH": str(ROOT), "MPLBACKEND": "module://matplotlib_inline.backend_inline"},
    }))
    return folder


def execute(name: str, kernel_dir, run_dir=None, **parameters) -> nbformat.NotebookNode:
    """Run a notebook with ``RUN_DIR`` set in its parameters cell (left as None when ``run_dir`` is None; a notebook
    that makes its own data has no ``RUN_DIR``).

    Other ``parameters`` replace the value of the parameter cell's line ``NAME = ...``.
    """
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    cells = [cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])]
    assert len(cells) == 1
    if run_dir is not None:
        assert "RUN_DIR = None" in cells[0].source
        cells[0].source = cells[0].source.replace("RUN_DIR = None", f"RUN_DIR = {str(run_dir)!r}")
    lines = cells[0].source.splitlines()
    for key, value in parameters.items():
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
        lines[index] = f"{key} = {value!r}"
    cells[0].source = "\n".join(lines)
    return _run(notebook, kernel_dir)


def execute_cells(sources: list[str], kernel_dir) -> nbformat.NotebookNode:
    """Run a notebook of these code cells in the kernel of ``kernel_dir``."""
    return _run(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources]), kernel_dir)


def _run(notebook: nbformat.NotebookNode, kernel_dir) -> nbformat.NotebookNode:
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]))
    client = NotebookClient(notebook, km=manager, timeout=120, resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute(cleanup_kc=True)  # a kernel handed in is left running unless asked: stop it, as Jupyter would
    return notebook


def images(notebook: nbformat.NotebookNode) -> int:
    """How many PNG figures the executed notebook drew."""
    return sum("image/png" in output.get("data", {}) for cell in notebook.cells for output in cell.get("outputs", []))


def errors(notebook: nbformat.NotebookNode) -> list:
    """The error outputs of every cell: an executed notebook should have none."""
    return [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]


def printed(notebook: nbformat.NotebookNode) -> str:
    """Everything the notebook's cells printed, in order."""
    return "".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))


def run_cleanly(name: str, kernel_dir, run_dir=None, **parameters) -> tuple[str, int]:
    """Run notebook ``name`` (``execute``), check that no cell raised, and return what it printed and how many
    images it drew: what each notebook test then reads."""
    notebook = execute(name, kernel_dir, run_dir, **parameters)
    assert not errors(notebook), errors(notebook)
    return printed(notebook), images(notebook)


def scratch_folders(text: str, prefix: str) -> list[Path]:
    """The sample-run folders (``experiments.analysis.scratch``) named ``prefix...`` in a notebook's printout."""
    return [Path(found) for found in re.findall(rf"(/\S*?/{re.escape(prefix)}[^/\s]+)", text)]
