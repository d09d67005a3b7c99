"""Knorri's own analysis: its report, figures and the cut-off study."""
