"""Analysis of a run folder: loading (``load``), statistics (``stats``, ``ladder``), figures and the report.

The notebooks under ``notebooks/`` and ``knorri-sim report`` both call this
package, so each number and each figure is computed in one place. Knorri's
analysis sits at the top (``load``, ``stats``, ``figures``, ``report``), the
other games' in their own subpackages (``knockout_whist``, ``kort``); every
game's report registers itself in ``reports``, and a game without one gets the
generic report (``generic``), drawn from its adapter's metadata alone.
"""
