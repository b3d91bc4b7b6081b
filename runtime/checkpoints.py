"""Signed checkpoints of runs and published receipts: recording them, and checking a ledger
against them (``maai verify``, ``maai receipt``, ``maai verify --receipt``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from maai.domain.events import RunSigned
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import Checkpoint, EventStore, LedgerError
from maai.ledger.errors import StoreBusyError
from maai.runtime import signing

T = TypeVar("T")

CHECKPOINT_EVERY = 500
"""A running run's head is signed every this many events, and whenever the run stops."""

RECEIPT_FORMAT = "maai.receipt/1"
PREFIX = 8  # hex digits of each event's hash kept in a receipt: enough to name where it differs


class ReceiptError(ValueError):
    """A receipt file that cannot be used; the message says why."""


SIGN_ATTEMPTS = 3
"""How often a signature's write is tried while the store stays locked: each try waits for
the lock up to the store's busy timeout, and a run that ended is not marked ended unsigned."""


def retry_while_busy(
    write: Callable[[], T], attempts: int = SIGN_ATTEMPTS, pause_s: float = 0.2
) -> T:
    """``write()``, tried again (after a short pause) while it raises
    :class:`~ledger.errors.StoreBusyError`; the last try's error is raised as it is."""
    for attempt in range(1, attempts + 1):
        try:
            return write()
        except StoreBusyError:
            if attempt == attempts:
                raise
            time.sleep(pause_s * attempt)
    raise AssertionError("unreachable")  # attempts >= 1


def sign_head(store: EventStore, run_id: str, signer: signing.Signer) -> Checkpoint | None:
    """Sign the run's current head, unless a checkpoint by this key already covers it."""
    head = store.head_hash(run_id)
    if head is None:
        return None
    seq, head_hash = head
    for cp in store.checkpoints(run_id):
        if cp.seq == seq and cp.hash == head_hash and cp.public_key == signer.public_key:
            return cp
    return store.add_checkpoint(
        run_id, seq, head_hash, signer.public_key, signer.sign(run_id, seq, head_hash)
    )


MISSING = "signing evidence missing"
"""How every problem that signing evidence is gone begins (``maai verify`` prints it)."""

_STOPPED = ("completed", "failed", "interrupted")
"""Statuses a run is given only once its head is signed (docs/ledger.md)."""


@dataclass
class CheckpointReport:
    checked: int = 0
    keys: dict[str, int] = field(default_factory=dict)  # fingerprint -> checkpoints signed
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unsigned_tail: tuple[int, int] | None = None  # (first, last) seq no checkpoint covers
    unsigned_head_problem: str | None = None  # the problem of a stopped run's unsigned head

    @property
    def ok(self) -> bool:
        return not self.problems


def recorded_signatures(store: EventStore, run_id: str) -> list[tuple[int, RunSigned]]:
    """The checkpoints the chain itself names: each ``run.signed`` event with its seq."""
    found: list[tuple[int, RunSigned]] = []
    for seq in store.seqs_of_type(run_id, RunSigned.TYPE):
        record = store.read_one(run_id, seq)
        assert record is not None  # just listed; events are never deleted by maai
        event = COMMON_REGISTRY.decode(record.type, record.schema_version, record.payload)
        assert isinstance(event, RunSigned)
        found.append((record.seq, event))
    return found


def signing_era(started: dict[str, Any] | None) -> bool:
    """Whether a run.started payload was written by a maai that signs its runs. Runs from
    before have neither provenance nor a request hash version; a writer who strips one of
    them from the hashed event must re-hash the whole chain, and the other still says."""
    return started is not None and ("provenance" in started or "request_hash_version" in started)


def check_checkpoints(
    store: EventStore, run_id: str, local_key: str | None = None
) -> CheckpointReport:
    """Every checkpoint's signature holds and names an event the ledger has with that hash;
    every checkpoint the chain names (``run.signed``) is still in the ledger; a stopped run's
    last checkpoint covers its head."""
    report = CheckpointReport()
    hashes = dict(store.event_hashes(run_id))
    head = max(hashes, default=0)
    first = store.read_one(run_id, 1) if hashes else None
    started = first.payload if first is not None and first.type == "run.started" else None
    named = recorded_signatures(store, run_id)
    info = store.get_run(run_id)
    found = store.checkpoints(run_id)
    signs = signing_era(started) or bool(named) or bool(found)
    for cp in found:
        report.checked += 1
        name = signing.fingerprint(cp.public_key)
        report.keys[name] = report.keys.get(name, 0) + 1
        if not signing.valid(cp.public_key, cp.signature, run_id, cp.seq, cp.hash):
            report.problems.append(f"checkpoint at seq {cp.seq}: the signature does not hold")
        elif hashes.get(cp.seq) != cp.hash:
            what = "is missing" if cp.seq not in hashes else "has another hash than was signed"
            report.problems.append(f"event {cp.seq} {what} (signed at {cp.signed_at:%Y-%m-%d})")
    rows = {(cp.seq, cp.hash, cp.public_key, cp.signature) for cp in found}
    # A fork's prefix holds its parent's run.signed events: they name the parent's
    # checkpoints, checked against the parent's hashes of the inherited events (docs/forks.md).
    from maai.runtime.forks import inherited_signers

    ancestors = inherited_signers(store, run_id) if named else []
    checked_rows: dict[str, set[tuple[int, str, str, str]]] = {}
    for at, named_cp in named:
        where = f"run.signed at seq {at}"
        signer_of = next((a for a in ancestors if at <= a[0]), None)
        if signer_of is not None:
            _, parent, parent_hashes = signer_of
            if named_cp.seq >= at or not signing.valid(
                named_cp.public_key, named_cp.signature, parent, named_cp.seq, named_cp.hash
            ):
                report.problems.append(f"{where} (inherited): the signature does not hold")
            elif parent_hashes.get(named_cp.seq) != named_cp.hash:
                report.problems.append(
                    f"{where} (inherited): event {named_cp.seq} has another hash than "
                    f"run {parent} signed"
                )
            if parent not in checked_rows:
                try:
                    checked_rows[parent] = {
                        (cp.seq, cp.hash, cp.public_key, cp.signature)
                        for cp in store.checkpoints(parent)
                    }
                except LedgerError:  # the parent lives in another ledger
                    checked_rows[parent] = set()
            parent_rows = checked_rows[parent]
            key = (named_cp.seq, named_cp.hash, named_cp.public_key, named_cp.signature)
            if parent_rows and key not in parent_rows:
                report.problems.append(
                    f"{MISSING}: the chain records ({where}) a checkpoint of run {parent} "
                    f"at seq {named_cp.seq} that the checkpoints table no longer holds"
                )
            continue
        if named_cp.seq >= at or not signing.valid(
            named_cp.public_key, named_cp.signature, run_id, named_cp.seq, named_cp.hash
        ):
            report.problems.append(f"{where}: the signature it records does not hold")
        elif hashes.get(named_cp.seq) != named_cp.hash:
            report.problems.append(f"{where}: event {named_cp.seq} has another hash than signed")
        key = (named_cp.seq, named_cp.hash, named_cp.public_key, named_cp.signature)
        if key not in rows:
            report.problems.append(
                f"{MISSING}: the chain records ({where}) a checkpoint of seq {named_cp.seq} "
                "that the checkpoints table no longer holds"
            )
    covered = max((cp.seq for cp in found), default=0)
    if covered < head:
        report.unsigned_tail = (covered + 1, head)
        text = (
            f"the last signed checkpoint covers seq {covered}, the head is seq {head}"
            if found
            else f"no signed checkpoint (head seq {head})"
        )
        if not signs:
            report.notes.append("recorded before maai signed checkpoints: none to check")
        elif info.status in _STOPPED:
            # A run is marked stopped only once its head is signed: a stopped run whose head
            # is not was cut, re-marked or stripped of its checkpoints (or its signing failed
            # on a full disk: resuming it signs it). A run that ends with run.completed but is
            # still "running" was killed between the two: its resume signs it.
            report.unsigned_head_problem = f"{MISSING}: {text}, yet the run is {info.status}"
            report.problems.append(report.unsigned_head_problem)
        else:
            report.notes.append(
                f"{text}: the run is {info.status}, its head is signed when it stops"
            )
    if local_key is not None:
        local = signing.fingerprint(local_key)
        foreign = sorted(k for k in report.keys if k != local)
        if foreign:
            report.notes.append("signed by a key that is not this machine's: " + ", ".join(foreign))
    return report


def receipt(store: EventStore, run_id: str, signer: signing.Signer | None) -> dict[str, Any]:
    """A small JSON a researcher can publish: the head, its signature and public key, and a
    short prefix of every event's hash (to name where a ledger departs from it)."""
    info = store.get_run(run_id)
    hashes = store.event_hashes(run_id)
    if not hashes:
        raise ReceiptError(f"run {run_id} has no events")
    head_seq, head_hash = hashes[-1]
    signed = [cp for cp in store.checkpoints(run_id) if cp.seq == head_seq and cp.hash == head_hash]
    if signer is not None:
        cp = sign_head(store, run_id, signer)
        assert cp is not None
        signed = [cp]
    if not signed:
        raise ReceiptError(f"run {run_id}: no signed checkpoint covers its head seq {head_seq}")
    cp = signed[-1]
    return {
        "format": RECEIPT_FORMAT,
        "run_id": run_id,
        "experiment": info.kind,
        "head_seq": head_seq,
        "head_hash": head_hash,
        "public_key": cp.public_key,
        "key_fingerprint": signing.fingerprint(cp.public_key),
        "signature": cp.signature,
        "hash_prefixes": "".join(hash_[:PREFIX] for _, hash_ in hashes),
    }


def check_receipt(store: EventStore, run_id: str, data: Any) -> list[str]:
    """Where the ledger departs from a receipt: the first seq whose event differs, or the
    missing tail. An empty list: the ledger holds the receipt's history."""
    try:
        seq = int(data["head_seq"])
        head_hash = str(data["head_hash"])
        prefixes = str(data["hash_prefixes"])
        key, signature = str(data["public_key"]), str(data["signature"])
        if data.get("format") != RECEIPT_FORMAT or data["run_id"] != run_id:
            raise ReceiptError(f"not a receipt of run {run_id} ({RECEIPT_FORMAT})")
    except (KeyError, TypeError, ValueError) as exc:
        raise ReceiptError(f"not a maai receipt: {exc}") from None
    if len(prefixes) != seq * PREFIX:
        raise ReceiptError("the receipt's hash prefixes do not match its head seq")
    if not signing.valid(key, signature, run_id, seq, head_hash):
        return ["the receipt's signature does not hold: the receipt itself was altered"]
    problems: list[str] = []
    last = 0
    for event_seq, event_hash in store.event_hashes(run_id):
        if event_seq > seq:
            break
        last = event_seq
        expected = prefixes[(event_seq - 1) * PREFIX : event_seq * PREFIX]
        if event_hash[:PREFIX] != expected or (event_seq == seq and event_hash != head_hash):
            problems.append(
                f"seq {event_seq} differs from the receipt's history (and so does every later "
                "event)"
            )
            return problems
    if last < seq:
        problems.append(
            f"the ledger ends at seq {last}; the receipt's history goes on to seq {seq} "
            f"(events {last + 1}-{seq} are missing)"
        )
    return problems
