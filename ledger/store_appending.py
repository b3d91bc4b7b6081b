"""Appending to a store: a batch of events checked, packed, hash-chained and inserted in
one transaction (the race-free scheme is in :mod:`ledger.store`), and signed checkpoints."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Final

import psycopg
from sqlalchemy import exc as sa_exc
from sqlalchemy import select

from maai.ledger import postgres_writer, sqlite_writer, store_base
from maai.ledger.batch import Batch
from maai.ledger.envelope import Appended, Checkpoint, NewEvent
from maai.ledger.errors import ConcurrencyError, InvalidEventError, LedgerError
from maai.ledger.packed_values import MIN_EVENT_CHARS, PACKED_KEY
from maai.ledger.schema import checkpoints, events, read_head
from maai.ledger.store_base import _as_utc, _nothing, _payload_text
from maai.ledger.store_fields import StoreFieldReading
from maai.ledger.stored_json import checked_json_text, encoded_json_parts, normalized_json_text

# A payload text this long is at least MIN_EVENT_CHARS long once normalized (normalization
# shortens a text only by rewriting "-0.0" as "0.0", by under a quarter), so the packer
# takes the same decision whether the text was normalized first or not.
_CHECKED_WHEN_STORED_CHARS: Final = MIN_EVENT_CHARS * 4 // 3 + 1


def _reference_payload_texts(events: Sequence[NewEvent]) -> list[str]:
    """Each payload's normalized text, every payload checked in order: raises
    :class:`InvalidEventError` naming the first event that cannot be stored."""
    texts: list[str] = []
    for index, new in enumerate(events):
        if not isinstance(new, NewEvent):
            raise InvalidEventError(
                f"events[{index}] is a {type(new).__name__}, not a ledger.NewEvent"
            )
        if PACKED_KEY in new.payload:
            raise InvalidEventError(
                f"events[{index}] ({new.type}): the payload key {PACKED_KEY!r} is reserved"
                " for the store's own use (see ledger.packing)"
            )
        try:
            texts.append(normalized_json_text(new.payload, "payload"))
        except InvalidEventError as exc:
            # Named here, not passed in: formatting the name per event costs more than
            # the check it would label.
            raise InvalidEventError(f"events[{index}] ({new.type}): {exc}") from None
    return texts


def _is_seq_conflict(exc: sa_exc.IntegrityError | sqlite3.IntegrityError) -> bool:
    orig = exc.orig if isinstance(exc, sa_exc.IntegrityError) else exc
    if isinstance(orig, psycopg.errors.UniqueViolation):
        diag = orig.diag
        return diag.constraint_name == "uq_events_run_id_seq"
    text = str(orig)
    return "UNIQUE constraint failed: events.run_id, events.seq" in text


class StoreAppending(StoreFieldReading):
    """The writes of :class:`~ledger.store.EventStore` to a run's events."""

    def append(self, run_id: str, expected_seq: int, events: Sequence[NewEvent]) -> list[Appended]:
        """Append ``events`` as seqs ``expected_seq + 1 ...``, all or nothing.

        Returns what the store assigned to each event (seq, position, time, hashes); the
        stored events themselves, with their normalized payloads (see
        :mod:`ledger.envelope`), are what :meth:`read` returns.

        :raises ConcurrencyError: the run's head is not ``expected_seq`` (nothing stored).
        :raises RunNotFoundError: no such run.
        :raises InvalidEventError: an event cannot be stored (checked before any write).
        :raises StoreBusyError: SQLite only: the write lock stayed taken past the timeout.
        """
        self._check_open()
        self._check_writable(f"appending to run {run_id!r}")
        if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
            raise InvalidEventError(f"expected_seq must be an int >= 0, not {expected_seq!r}")
        texts, unchecked, sizes = self._payload_texts(events)
        # Repeated text is stored as differences against earlier events (ledger.packing).
        packed_committed: Callable[[], None] = _nothing
        if self.pack_repeated_text:
            packed: list[int] = []
            try:
                texts, packed_committed = self._packer.pack(
                    run_id,
                    expected_seq,
                    [(new.type, new.agent) for new in events],
                    [new.payload for new in events],
                    texts,
                    _payload_text,
                    packed,
                    sizes,
                )
                # Checked as stored if packed (_payload_text above), else here, whole.
                for index in set(unchecked).difference(packed):
                    parts = unchecked[index]
                    texts[index] = checked_json_text("".join(parts), "payload")
            except InvalidEventError:
                _reference_payload_texts(events)  # raises the error that names the event
                raise
        recorded = store_base.utcnow()
        batch = Batch(run_id, expected_seq, list(events), texts, recorded)

        with self._errors(f"appending to run {run_id!r}"):
            try:
                if self._sqlite:
                    positions = self._append_sqlite_transaction(batch)
                else:
                    with self._write_engine.begin() as conn:
                        positions = postgres_writer.append_rows(conn, batch)
            except (sa_exc.IntegrityError, sqlite3.IntegrityError) as exc:
                if not _is_seq_conflict(exc):
                    raise
                raise ConcurrencyError(run_id, expected_seq, self._head_or_none(run_id)) from None
        packed_committed()
        return [
            Appended(position, seq, recorded, prev_hash, hash_)
            for position, (_, seq, _, _, _, _, _, prev_hash, hash_) in zip(
                positions, batch.rows, strict=True
            )
        ]

    def _payload_texts(
        self, events: Sequence[NewEvent]
    ) -> tuple[list[str], dict[int, list[str]], list[int]]:
        """Each payload's canonical text; the payloads left to check once packed, by index,
        as the pieces of their text (:func:`encoded_json_parts`; their place in the texts is
        left empty); and the texts' lengths.

        A payload is checked (NUL characters, the floats that normalization rewrites) as a
        scan of its text, and a request's text holds its whole prompt: over a run the scans
        grew with the square of its length. Where the store packs a long payload, it checks
        the text it stores instead, which holds everything the payload does not copy from
        earlier payloads of the run, themselves checked when stored: a NUL character or a
        float to rewrite in the payload is in one or the other. A payload stored whole is
        checked whole. Where anything is refused, :func:`_reference_payload_texts` names the
        first event at fault, as checking every payload first would."""
        if not self.pack_repeated_text:
            whole = _reference_payload_texts(events)
            return whole, {}, [len(text) for text in whole]
        texts: list[str] = []
        unchecked: dict[int, list[str]] = {}
        sizes: list[int] = []
        try:
            for index, new in enumerate(events):
                if not isinstance(new, NewEvent) or PACKED_KEY in new.payload:
                    raise InvalidEventError(f"events[{index}]")
                parts = encoded_json_parts(new.payload, "payload")
                size = sum(map(len, parts)) if len(parts) > 1 else len(parts[0])
                if size >= _CHECKED_WHEN_STORED_CHARS:
                    unchecked[index] = parts
                    text = ""
                else:
                    text = checked_json_text("".join(parts), "payload")
                    size = len(text)
                texts.append(text)
                sizes.append(size)
        except InvalidEventError:
            _reference_payload_texts(events)
            raise
        return texts, unchecked, sizes

    def _append_sqlite_transaction(self, batch: Batch) -> Sequence[int]:
        # On the sqlite3 connection itself, transaction included (it is in autocommit mode:
        # isolation_level=None): SQLAlchemy's begin and commit, and its per-statement and
        # per-row work, would cost about as much as SQLite's own. sqlite3 errors raised here
        # are translated by _errors like any other.
        assert self._sqlite_writer is not None
        with self._sqlite_writer.transaction() as raw:
            return sqlite_writer.append_rows(raw, batch)

    def _head_or_none(self, run_id: str) -> int | None:
        try:
            with self._engine.connect() as conn:
                return read_head(conn, run_id)
        except (LedgerError, sa_exc.SQLAlchemyError):
            return None

    def checkpoints(self, run_id: str) -> list[Checkpoint]:
        """The run's checkpoints, in the order they were recorded."""
        self._check_open()
        with self._errors(f"reading checkpoints of run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
            if not self._has_checkpoints:
                return []  # a ledger read at a revision before checkpoints were kept
            rows = conn.execute(
                select(checkpoints).where(checkpoints.c.run_id == run_id).order_by(checkpoints.c.id)
            ).all()
        return [
            Checkpoint(
                run_id=r.run_id,
                seq=r.seq,
                hash=r.hash,
                public_key=r.public_key,
                signature=r.signature,
                signed_at=_as_utc(r.signed_at),
            )
            for r in rows
        ]

    def add_checkpoint(
        self, run_id: str, seq: int, hash: str, public_key: str, signature: str
    ) -> Checkpoint:
        """Record a signed head. The store checks that the run has that event with that
        hash (it does not check the signature: that is the verifier's work)."""
        self._check_open()
        self._check_writable(f"recording a checkpoint of run {run_id!r}")
        moment = store_base.utcnow()
        with (
            self._errors(f"recording a checkpoint of run {run_id!r}"),
            self._write_engine.begin() as conn,
        ):
            stored = conn.execute(
                select(events.c.hash).where(events.c.run_id == run_id, events.c.seq == seq)
            ).scalar()
            if stored is None:
                read_head(conn, run_id)  # an unknown run says so
                raise LedgerError(f"run {run_id} has no event {seq} to checkpoint")
            if stored != hash:
                raise LedgerError(f"run {run_id}: event {seq} does not have hash {hash}")
            conn.execute(
                checkpoints.insert().values(
                    run_id=run_id,
                    seq=seq,
                    hash=hash,
                    public_key=public_key,
                    signature=signature,
                    signed_at=moment,
                )
            )
        return Checkpoint(
            run_id=run_id,
            seq=seq,
            hash=hash,
            public_key=public_key,
            signature=signature,
            signed_at=moment,
        )
