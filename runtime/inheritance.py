"""A fork's ancestors as its history holds them (docs/forks.md): the ``run.signed`` events
of an inherited prefix name the ancestors' checkpoints, which hold against the ancestors'
hashes of those events, not the fork's. Apart from runtime/forks.py so that the checkpoint
checks (runtime/checkpoints.py) read it without importing the forking machinery."""

from __future__ import annotations

from sqlalchemy import select

from maai.domain.events import RunForked
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import EventStore
from maai.ledger.forking import chained, copied_rows
from maai.ledger.schema import events as events_table


def inherited_signers(store: EventStore, run_id: str) -> list[tuple[int, str, dict[int, str]]]:
    """For each of a run's ancestors, oldest first: the last seq of the run's history that
    is the ancestor's own (its events up to there, as far as this run holds them), its id,
    and its hash of each of them (this run's events re-chained under its id). A ``run.signed``
    at seq ``at`` was recorded by the first ancestor whose last seq is ``at`` or later."""
    ancestors = []
    for seq in _seqs_of(store, run_id, RunForked.TYPE):
        stored = next(iter(store.read(run_id, from_seq=seq - 1)))
        event = COMMON_REGISTRY.decode(stored.type, stored.schema_version, stored.payload)
        assert isinstance(event, RunForked)
        rows = copied_rows(store, run_id, event.parent_seq)
        hashes = {row[0]: digest for row, _, digest in chained(event.parent_run, rows)}
        ancestors.append((event.parent_seq, event.parent_run, hashes))
    return ancestors


def _seqs_of(store: EventStore, run_id: str, type_: str) -> list[int]:
    with store._engine.connect() as conn:  # noqa: SLF001 -- one indexed lookup
        rows = conn.execute(
            select(events_table.c.seq)
            .where(events_table.c.run_id == run_id, events_table.c.type == type_)
            .order_by(events_table.c.seq)
        ).all()
    return [int(r[0]) for r in rows]
