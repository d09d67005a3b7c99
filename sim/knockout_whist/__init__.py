"""Knockout Whist: rules and encodings."""
