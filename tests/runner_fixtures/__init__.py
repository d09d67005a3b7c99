"""Helpers the runner tests load by import path (``runner_fixtures.agents:Name``, tests/ on the path)."""
