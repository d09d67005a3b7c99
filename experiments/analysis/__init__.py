"""Analysis of a run folder: loading (``load``), statistics (``stats``, ``ladder``), figures and the report.

The notebooks under ``notebooks/`` and ``knorri-sim report`` both call this
package, so each number and each figure is computed in one place. Each game's
analysis sits in its own subpackage (``knorri``, ``knockout_whist``, ``kort``),
on the pieces they share at the top (``load``, ``stats``, ``figures``,
``ladder``); every game's report registers itself in ``reports``, and a game
without one gets the generic report (``generic``), drawn from its adapter's
metadata alone.
"""
