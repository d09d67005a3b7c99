"""Knockout Whist's own agents, registered for the game ``knockout-whist``.

``random`` plays every game through the protocol alone (``agents.base``); the
agents here read Knockout Whist's observation. Importing this package registers them.
"""
