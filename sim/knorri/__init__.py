"""Knorri: rules, encodings and engines."""

from sim.knorri.encoding import NUM_ACTIONS, PICK_UP
from sim.knorri.observation import KnorriObservation
from sim.knorri.reference import EndReason, KnorriHand

__all__ = ["NUM_ACTIONS", "PICK_UP", "EndReason", "KnorriHand", "KnorriObservation"]
