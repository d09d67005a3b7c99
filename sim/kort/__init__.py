"""Kort: encodings, rules, the reference engine for a whole match, observations and the conformance protocol."""

from sim.kort.encoding import NUM_ACTIONS, LeadState, Options, Phase, Result, parse_options
from sim.kort.observation import KortObservation
from sim.kort.reference import KortMatch

__all__ = ["NUM_ACTIONS", "KortMatch", "KortObservation", "LeadState", "Options", "Phase", "Result", "parse_options"]
