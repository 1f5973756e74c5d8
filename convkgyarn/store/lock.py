"""One lock per project database, taken by every command before it opens the database.

Readers share it; a writer holds it alone. A command that finds the project busy stops at
once with ``BusyError`` (exit 75) naming the holder, instead of DuckDB's lock traceback.
The lock is an ``flock`` on ``<db>.lock``: the kernel releases it when the holder dies,
even by ``kill -9``, so a stale lock never blocks a project.
"""

from __future__ import annotations

import fcntl
import os
from datetime import datetime, timezone
from pathlib import Path

from convkgyarn.errors import BusyError


class ProjectLock:
    def __init__(self, db: Path, *, exclusive: bool, command: str = "convkgyarn") -> None:
        self.db = Path(db)
        self.path = Path(str(db) + ".lock")
        self.exclusive = exclusive
        self.command = command
        self._fh = None
        self._created = False

    def acquire(self) -> "ProjectLock":
        try:
            self._created = not self.path.exists()
            self._fh = open(self.path, "a+")  # noqa: SIM115 - held until release()
        except OSError:
            if self.exclusive:
                raise
            return self  # a reader in a folder it cannot write: DuckDB's own lock still applies
        mode = fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(self._fh, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.seek(0)
            holder = self._fh.read().strip() or "a reader"
            self._fh.close()
            self._fh = None
            raise BusyError(f"another convkgyarn command is using {self.db} ({holder}); "
                            "try again when it has finished") from None
        if self.exclusive:
            self._fh.seek(0)
            self._fh.truncate()
            self._fh.write(f"pid {os.getpid()}, {self.command}, since "
                           f"{datetime.now(timezone.utc).isoformat(timespec='seconds')}")
            self._fh.flush()
        return self

    def release(self, *, failed_open: bool = False) -> None:
        """Let the lock go. After an open that failed (``failed_open``: no project there, or
        a file that is not one), a lock file this lock created is removed too: a refused
        ``--db notes.txt`` leaves no ``notes.txt.lock`` beside the user's file."""
        if self._fh is None:
            return
        if self.exclusive:
            self._fh.seek(0)
            self._fh.truncate()
        if failed_open and self._created:
            try:  # held alone (a reader's shared lock upgraded): no one else relies on it
                fcntl.flock(self._fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.path.unlink(missing_ok=True)
            except BlockingIOError:
                pass
        fcntl.flock(self._fh, fcntl.LOCK_UN)
        self._fh.close()
        self._fh = None

    def __enter__(self) -> "ProjectLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
