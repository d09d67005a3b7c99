"""The knorri-sim command line, the experiment runner and benchmarks."""

import runpy as _runpy
from pathlib import Path as _Path

# A user's own sim/ ahead on sys.path would be imported in place of the harness's engines, and fail far from the
# cause: refuse it (or any other harness name taken) in one line before this package imports sim. sim/harness.py
# imports nothing of the harness, so it is run from its file.
_runpy.run_path(str(_Path(__file__).resolve().parent.parent / "sim" / "harness.py"),
                run_name="sim.harness")["refuse_shadowing"]()
