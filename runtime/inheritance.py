"""A fork's ancestors as its history holds them (docs/forks.md): the ``run.signed`` events
of an inherited prefix name the ancestors' checkpoints, which hold against the ancestors'
hashes of those events, not the fork's. Apart from runtime/forks.py so that the checkpoint
checks (runtime/checkpoints.py) read it without importing the forking machinery."""

from __future__ import annotations

from sqlalchemy import select

from maai.domain.events import RunForked
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import EventStore, LedgerError
from maai.ledger.forking import chained, copied_rows
from maai.ledger.schema import events as events_table


def inherited_signers(store: EventStore, run_id: str) -> list[tuple[int, str, dict[int, str]]]:
    """For each of a run's ancestors, oldest first: the last seq of the run's history that
    is the ancestor's own (its events up to there, as far as this run holds them), its id,
    and its hash of each of them (this run's events re-chained under its id). A ``run.signed``
    at seq ``at`` was recorded by the first ancestor whose last seq is ``at`` or later.

    The ancestors are found through the parents' own histories where the ledger holds them:
    a fork of a fork at a point before the parent's own fork point holds none of the
    parent's ``run.forked``, and its prefix's ``run.signed`` events are the grandparent's."""
    ancestors = []
    for last, ancestor in _lineage(store, run_id):
        rows = copied_rows(store, run_id, last)
        hashes = {row[0]: digest for row, _, digest in chained(ancestor, rows)}
        ancestors.append((last, ancestor, hashes))
    return ancestors


def _forks_in(store: EventStore, run_id: str) -> list[RunForked]:
    found = []
    for seq in _seqs_of(store, run_id, RunForked.TYPE):
        stored = next(iter(store.read(run_id, from_seq=seq - 1)))
        event = COMMON_REGISTRY.decode(stored.type, stored.schema_version, stored.payload)
        assert isinstance(event, RunForked)
        found.append(event)
    return found


def _lineage(store: EventStore, run_id: str, depth: int = 0) -> list[tuple[int, str]]:
    """``(last seq of this run's history that is the ancestor's own, ancestor)``, oldest
    first: the parent's lineage cut at the fork point, then the parent. A parent the ledger
    does not hold is taken at its word: the ``run.forked`` events of this run's prefix."""
    forks = _forks_in(store, run_id)
    if not forks:
        return []
    own = forks[-1]
    earlier: list[tuple[int, str]]
    try:
        store.get_run(own.parent_run)
    except LedgerError:
        earlier = [(e.parent_seq, e.parent_run) for e in forks[:-1]]
    else:
        if depth > 64:  # never: a run cannot be its own ancestor
            raise LedgerError(f"run {run_id}: its lineage loops")
        earlier = _lineage(store, own.parent_run, depth + 1)
    cut = [(min(last, own.parent_seq), ancestor) for last, ancestor in earlier]
    return [*cut, (own.parent_seq, own.parent_run)]


def _seqs_of(store: EventStore, run_id: str, type_: str) -> list[int]:
    with store._engine.connect() as conn:  # noqa: SLF001 -- one indexed lookup
        rows = conn.execute(
            select(events_table.c.seq)
            .where(events_table.c.run_id == run_id, events_table.c.type == type_)
            .order_by(events_table.c.seq)
        ).all()
    return [int(r[0]) for r in rows]
