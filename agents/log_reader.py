"""What every game's card tracker does the same way: read the public log as it grows, one event at a time.

A tracker sees each decision's observation, whose log holds every public event so far. It
applies only the events it has not read yet; a log shorter than what it has read is a new
game's, so it forgets everything and starts over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class LogReader:
    """The base of a tracker: ``read_log`` applies the new events; a subclass writes ``_apply_event`` and
    ``_restart`` (forget everything, as its constructor starts)."""

    _read = 0
    """How many events of the log have been applied."""

    def read_log(self, log: Sequence[dict[str, Any]]) -> None:
        """Apply the events of ``log`` not read yet (after a restart when the log is a new game's)."""
        if len(log) < self._read:
            self._restart()
            self._read = 0
        for event in log[self._read:]:
            self._apply_event(event)
        self._read = len(log)

    def _restart(self) -> None:
        """Forget everything read: the log started over."""
        raise NotImplementedError

    def _apply_event(self, event: dict[str, Any]) -> None:
        """Update what is known from one public event."""
        raise NotImplementedError
