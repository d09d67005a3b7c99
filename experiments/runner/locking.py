"""The run folder's one writer: an ``flock`` on a file system, a renewed lease on an object store.

``storage.RunFolder.lock`` holds it while a run writes; a second writer gets one ``RunFolderBusy`` line. A lock
left by a killed writer never blocks the next: the system drops an ``flock`` with its holder, and a lease not
renewed for ``LEASE_SECONDS`` (or whose writer on this machine has died) is taken over.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from experiments.errors import UsageError

LOCK = ".lock"
LEASE_SECONDS = 30.0  # an object store's lock that has not been renewed for this long is a dead writer's


class RunFolderBusy(UsageError):
    """Another live process is writing the run folder; reported as one line, exit code 2."""


@contextlib.contextmanager
def file_lock(root: Path, holder: str) -> Iterator[None]:
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise unwritable(root, error) from None
    handle = _locked(root / LOCK, root)
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(holder)
        handle.flush()
        yield
    finally:
        # A run that ends in order (finished, stopped or interrupted) takes its lock file away, still holding
        # the lock; a killed one leaves it, and the next writer locks it again (the system dropped the lock).
        with contextlib.suppress(OSError):
            (root / LOCK).unlink()
        handle.close()  # closing drops the flock


def _locked(path: Path, root: Path) -> Any:
    """``path`` opened and flocked. A lock file its holder removed as this process opened it is tried again:
    only the file that the name still names counts, so no two writers can hold twins of it."""
    while True:
        try:
            handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise unwritable(root, error) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            other = handle.read().strip() or "another process"
            handle.close()
            raise RunFolderBusy(f"run folder {str(root)!r} is being written by {other}: wait for it to finish "
                                "or stop it (two writers would mix their chunks)") from None
        try:
            same = os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return handle
        handle.close()


def unwritable(root: str | os.PathLike, error: OSError) -> UsageError:
    """The one line for a run folder the system will not let this process change (read-only, immutable, full)."""
    return UsageError(f"cannot write the run folder {str(root)!r}: {error.strerror or error} "
                      f"({error.filename or root}): give a folder you can write")


@contextlib.contextmanager
def lease(folder: Any, holder: str) -> Iterator[None]:
    current = folder._read_bytes(LOCK)
    if current is not None:
        try:
            lease = json.loads(current)
            age = time.time() - float(lease["renewed"])
        except (ValueError, KeyError, TypeError):
            lease, age = {}, LEASE_SECONDS
        if lease.get("host") == socket.gethostname() and not _alive(lease.get("pid")):
            age = LEASE_SECONDS  # a writer on this machine that has died: no need to wait its lease out
        if age < LEASE_SECONDS:
            raise RunFolderBusy(f"run folder {folder.location!r} is being written by {lease.get('holder')} (its "
                                f"lease renewed {age:.0f} s ago): wait for it to finish or stop it (two writers would "
                                "mix their chunks)")
    stop = threading.Event()

    def lease_now() -> bytes:
        return json.dumps({"holder": holder, "host": socket.gethostname(), "pid": os.getpid(),
                           "renewed": time.time()}).encode()

    def renew() -> None:
        while not stop.wait(LEASE_SECONDS / 3):
            with contextlib.suppress(OSError):  # a missed renewal is retried; the lease outlives two
                folder._write_bytes(lease_now(), LOCK)

    try:
        folder._write_bytes(lease_now(), LOCK)
    except OSError as error:
        raise UsageError(f"cannot write the run folder {folder.location!r}: {error}") from None
    thread = threading.Thread(target=renew, name="knorri-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        folder._remove(LOCK)


def _alive(pid: Any) -> bool:
    """Whether a process of this machine with that pid exists."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
