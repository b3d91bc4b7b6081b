"""What must hold before maai acts on a stored run: continues it, signs its head, or takes its
config to send requests (docs/ledger.md, "Trust before acting").

The ledger may have been written by someone else. Before a request leaves or a key signs,
the run's hash chain must hold, every checkpoint and every signature the chain names must
hold and still be in the ledger, and the config is the one in the hashed ``run.started``,
never the ``runs`` row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maai.domain.events import RunSigned, RunStarted
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import Checkpoint, EventStore
from maai.runtime import signing
from maai.runtime.checkpoints import check_checkpoints, recorded_signatures


class UntrustedRunError(RuntimeError):
    """A run maai will not act on; the message names the run and says why."""


@dataclass
class Trusted:
    """A run that may be continued and signed: its hashed start, and what to say or record."""

    started: RunStarted
    head: int = 0
    warnings: list[str] = field(default_factory=list)
    unnamed: list[Checkpoint] = field(default_factory=list)
    """Checkpoints that hold but that the chain does not name yet (the head signed when the
    run last stopped): the next append names them (``run.signed``)."""

    def evidence(self) -> list[RunSigned]:
        return [
            RunSigned(seq=cp.seq, hash=cp.hash, public_key=cp.public_key, signature=cp.signature)
            for cp in self.unnamed
        ]


def started_of(store: EventStore, run_id: str) -> RunStarted:
    """The run's hashed first event; a run without one is never acted on (its config would
    come from the unhashed row alone)."""
    first = store.read_one(run_id, 1)
    if first is None:
        raise UntrustedRunError(
            f"run {run_id} has no events: it was never started (its first write was lost, or "
            "its row was made by hand), and its row is not trusted for a config; start a new run"
        )
    event = COMMON_REGISTRY.decode(first.type, first.schema_version, first.payload)
    if not isinstance(event, RunStarted):
        raise UntrustedRunError(f"run {run_id}: its first event is {first.type}, not run.started")
    return event


def require_trusted(
    store: EventStore, run_id: str, *, allow_unsigned_interrupted: bool = True
) -> Trusted:
    """Check ``run_id`` as ``maai verify`` checks its chain and signatures, before anything
    is sent or signed; raise :class:`UntrustedRunError` naming the first reason not to.

    An ``interrupted`` run whose head is not signed is let through with a warning when
    ``allow_unsigned_interrupted``: a full disk stops a run before its head can be signed,
    and resuming it is how it gets signed (``maai verify`` still fails it until then)."""
    chain = store.verify_chain(run_id)
    if not chain.ok:
        raise UntrustedRunError(
            f"run {run_id}: hash chain broken at seq {chain.first_bad_seq}: {chain.reason} "
            "(maai verify tells more); nothing was sent or signed"
        )
    started = started_of(store, run_id)
    report = check_checkpoints(store, run_id)
    status = store.get_run(run_id).status
    trusted = Trusted(started, chain.head_seq)
    for problem in report.problems:
        if (
            allow_unsigned_interrupted
            and status == "interrupted"
            and problem == report.unsigned_head_problem
        ):
            trusted.warnings.append(
                f"run {run_id}: {problem}; resuming signs it (check it first: maai verify)"
            )
            continue
        raise UntrustedRunError(f"run {run_id}: {problem}; nothing was sent or signed")
    named = {
        (e.seq, e.hash, e.public_key, e.signature) for _, e in recorded_signatures(store, run_id)
    }
    trusted.unnamed = [
        cp
        for cp in store.checkpoints(run_id)
        if (cp.seq, cp.hash, cp.public_key, cp.signature) not in named
        and signing.valid(cp.public_key, cp.signature, run_id, cp.seq, cp.hash)
    ]
    return trusted
