"""Experiment configs for ``knorri-sim run --config`` (TOML or YAML); ``default.toml`` is the no-option run."""
