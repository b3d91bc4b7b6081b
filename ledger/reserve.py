"""Room kept on a SQLite ledger's disk for the write that ends a run.

On a full disk SQLite cannot even update a run's status: in WAL mode every write appends
frames to the write-ahead log, and the log cannot grow. A run stopped by the full disk would
then stay ``running``. A writer keeps a small file beside the ledger (``LEDGER-reserve``,
:data:`RESERVE_BYTES`); when the update that leaves a stopped run ``interrupted`` meets a
full disk, the file is removed and the update tried again in the room it leaves (no other
write may spend it: :data:`STOPPED_STATUS`). The next writer that finds room makes it again."""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import Final

RESERVE_BYTES: Final = 128 * 1024
"""Room for a few dozen status updates (each appends a page or two to the log)."""

STOPPED_STATUS: Final = "interrupted"
"""The one status whose update may spend the reserve: the one that leaves a run stopped by
the disk resumable. Any other (``running``, ``completed``) meets the full disk as any write
does: spent on a run that goes on, the room would go to its next appends, and the runs
stopped after them would find none left."""


def reserve_path(db: Path) -> Path:
    return db.with_name(f"{db.name}-reserve")


def keep_reserve(db: Path) -> None:
    """Make the reserve beside ``db`` unless it is there (best effort: a disk already full,
    or a folder that cannot be written, leaves it missing)."""
    path = reserve_path(db)
    if path.exists():
        return
    partial = path.with_name(f"{path.name}.partial")
    try:
        with open(partial, "wb") as out:
            out.write(b"\0" * RESERVE_BYTES)  # written, not sparse: the blocks are taken
            out.flush()
            os.fsync(out.fileno())
        partial.replace(path)
    except OSError:
        with suppress(OSError):
            partial.unlink()


def release_reserve(db: Path) -> bool:
    """Remove the reserve beside ``db``; whether there was one."""
    try:
        reserve_path(db).unlink()
    except OSError:
        return False
    return True
