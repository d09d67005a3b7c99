"""Knockout Whist: rules, encodings and the reference engine."""

from sim.knockout_whist.encoding import NUM_ACTIONS, EndReason, Options, Phase, Status, parse_options
from sim.knockout_whist.observation import KnockoutWhistObservation
from sim.knockout_whist.reference import KnockoutWhistGame

__all__ = ["NUM_ACTIONS", "EndReason", "KnockoutWhistGame", "KnockoutWhistObservation", "Options", "Phase",
           "Status", "parse_options"]
