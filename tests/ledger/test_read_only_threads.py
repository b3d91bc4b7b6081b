"""A SQLite ledger opened read-only is read by many threads at once (``maai view`` answers a
run's page parts together): every reader gets the whole run, none has its connection closed
under it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from maai.ledger import EventStore
from tests.view.ledgers import write_run

READERS = 12  # more than the five connections SQLAlchemy's in-memory pool keeps


def test_many_threads_read_one_read_only_store_at_once(tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    written = len(write_run(db, "run"))
    with EventStore.open(str(db), read_only=True, read_chunk=16) as store:

        def seqs(_: int) -> list[int]:
            return [event.seq for event in store.read("run")]  # many chunks, many queries

        with ThreadPoolExecutor(READERS) as pool:
            for read in pool.map(seqs, range(READERS * 3)):
                assert read == list(range(1, written + 1))
