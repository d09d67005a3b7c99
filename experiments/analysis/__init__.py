"""Analysis of a run folder: loading (``load``), statistics (``stats``, ``ladder``), figures and the report.

The notebooks under ``notebooks/`` and ``knorri-sim report`` both call this
package, so each number and each figure is computed in one place.
"""
