"""Which runs of the ledger are forks of which (docs/forks.md), as ``maai view`` shows them:
a run's parent with its fork point, and its children, each linked.

Read with ``runtime.forks.lineage`` (one query over the ledger's ``run.forked`` events, no
other event read), once per set of runs: a new fork is a new run, so the set of run ids
says when to read again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from maai.ledger import EventStore


@dataclass(frozen=True)
class Link:
    """One end of a fork: the other run, the point's name and the parent's seq there."""

    run_id: str
    point: str
    parent_seq: int


@dataclass(frozen=True)
class RunLineage:
    parent: Link | None
    children: list[Link]

    @property
    def empty(self) -> bool:
        return self.parent is None and not self.children


class LineageCache:
    """The ledger's forks, read again when its set of runs changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: frozenset[str] | None = None
        self._parents: dict[str, tuple[str, str, int]] = {}

    def parents(self, store: EventStore, run_ids: Iterable[str]) -> dict[str, tuple[str, str, int]]:
        """child -> (parent, point, the parent's seq at the point), for every fork."""
        key = frozenset(run_ids)
        with self._lock:
            if key != self._key:
                from maai.runtime.forks import lineage

                self._parents = dict(lineage(store).parents)
                self._key = key
            return self._parents

    def of(self, store: EventStore, run_ids: Iterable[str], run_id: str) -> RunLineage:
        parents = self.parents(store, run_ids)
        found = parents.get(run_id)
        parent = None if found is None else Link(found[0], found[1], found[2])
        children = sorted(
            (Link(child, point, seq) for child, (p, point, seq) in parents.items() if p == run_id),
            key=lambda link: (link.parent_seq, link.run_id),
        )
        return RunLineage(parent, children)

    def fork_of(
        self, store: EventStore, run_ids: Iterable[str], child: str, parent: str
    ) -> Link | None:
        """Where ``child`` was forked from ``parent`` (a direct fork), else ``None``."""
        found = self.parents(store, run_ids).get(child)
        if found is None or found[0] != parent:
            return None
        return Link(parent, found[1], found[2])
