"""Reading a store: runs' events (whole; the fields a fold needs are read by
``ledger.store_fields``), heads, hashes and the chain check. SQLite rows are read with one
prepared query per chunk; PostgreSQL rows through SQLAlchemy (payloads as text, parsed when
the event is built)."""

from __future__ import annotations

import sqlite3
import typing
from collections.abc import Callable, Container, Generator, Iterator
from datetime import datetime
from functools import partial
from typing import Any, Final, TypeVar

from sqlalchemy import Connection, DateTime, Text, bindparam, cast, func, select, type_coerce

from maai.ledger.chain import ChainChecker
from maai.ledger.envelope import ChainReport, StoredEvent, stored_event, stored_text_hash_holds
from maai.ledger.errors import ChainBrokenError
from maai.ledger.packed_values import MIN_EVENT_CHARS, PackingError
from maai.ledger.schema import events, read_head
from maai.ledger.store_base import StoreBase, _as_utc, _first_line, _payload_text
from maai.ledger.stored_json import parse_canonical_json, parse_json
from maai.ledger.unpacking import Unpacker

StoredRow = tuple[int, int, str, int, str, str | None, Any, str, str]
"""An events row as every read query returns it: ``(position, seq, type, schema_version,
payload text, agent, recorded_at, prev_hash, hash)``, ``recorded_at`` as SQLite's text or
PostgreSQL's datetime. A row is read by unpacking it into names, never by position."""

_Chunk = TypeVar("_Chunk", bound=tuple[Any, ...])
"""The rows a chunk fetch selects: ``position`` first, ``seq`` second (what the chunks are
paginated on)."""

# Columns in the order every read query returns them (StoredRow).
_EVENT_COLUMNS: Final = (
    "position, seq, type, schema_version, payload, agent, recorded_at, prev_hash, hash"
)


_SQLITE_READ: Final = (
    f"SELECT {_EVENT_COLUMNS} FROM events WHERE run_id = ? AND seq > ? AND seq <= ?"
    " ORDER BY seq LIMIT ?"
)


MAX_SEQ: Final = 2**63 - 1


def pg_chunk_query(*columns: Any) -> Any:
    """A PostgreSQL query of ``columns`` (``position`` and ``seq`` first) for one chunk of a
    run's events, ``p_after < seq <= p_upto`` in seq order, at most ``p_limit``, ``p_run_id``'s
    (the parameters :meth:`StoreReading._postgres_chunk` binds)."""
    return (
        select(*columns)
        .where(
            events.c.run_id == bindparam("p_run_id"),
            events.c.seq > bindparam("p_after"),
            events.c.seq <= bindparam("p_upto"),
        )
        .order_by(events.c.seq)
        .limit(bindparam("p_limit"))
    )


PAYLOAD_TEXT: Final = cast(events.c.payload, Text)
"""The payload as PostgreSQL prints it (parsed when the event is built)."""

_PG_READ: Final = pg_chunk_query(
    events.c.position,
    events.c.seq,
    events.c.type,
    events.c.schema_version,
    PAYLOAD_TEXT,
    events.c.agent,
    type_coerce(events.c.recorded_at, DateTime(timezone=True)),
    events.c.prev_hash,
    events.c.hash,
)


_parse_time: Final = datetime.fromisoformat


def _stored_text_hashes(run_id: str, row: StoredRow) -> bool:
    """Whether a full SQLite row holds at its hash as its texts are stored (the payload and
    ``recorded_at`` as the store wrote and hashed them)."""
    _, seq, type_, version, text, agent, recorded_at, prev_hash, hash_ = row
    return stored_text_hash_holds(
        hash_,
        run_id=run_id,
        seq=seq,
        type=type_,
        schema_version=version,
        payload_json=text,
        agent=agent,
        recorded_at=recorded_at,
        prev_hash=prev_hash,
    )


def _holds() -> bool:
    """The hash check of a row already found to hold at its hash."""
    return True


class StoreReading(StoreBase):
    """The reads of :class:`~ledger.store.EventStore`."""

    def head(self, run_id: str) -> int:
        """The run's head seq: the seq of its last event, 0 for an empty run."""
        self._check_open()
        with self._errors(f"reading the head of run {run_id!r}"), self._engine.connect() as conn:
            return read_head(conn, run_id)

    def event_hashes(self, run_id: str) -> list[tuple[int, str]]:
        """Every event's (seq, hash), in seq order, without reading any payload: what
        checkpoints and receipts are checked against."""
        self._check_open()
        with self._errors(f"reading the hashes of run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
            rows = conn.execute(
                select(events.c.seq, events.c.hash)
                .where(events.c.run_id == run_id)
                .order_by(events.c.seq)
            ).all()
        return [(int(seq), str(hash_)) for seq, hash_ in rows]

    def seqs_of_type(self, run_id: str, type_: str) -> list[int]:
        """The seqs of the run's events of one type, in order, without reading a payload
        (what finds the few events of a type that a long run holds)."""
        self._check_open()
        with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
            rows = conn.execute(
                select(events.c.seq)
                .where(events.c.run_id == run_id, events.c.type == type_)
                .order_by(events.c.seq)
            ).all()
        return [int(seq) for (seq,) in rows]

    def head_hash(self, run_id: str) -> tuple[int, str] | None:
        """The run's head seq and the hash of its event (``None`` for an empty run), without
        reading the event's payload: what signing the head needs."""
        self._check_open()
        with self._errors(f"reading the head of run {run_id!r}"), self._engine.connect() as conn:
            head = read_head(conn, run_id)
            if head == 0:
                return None
            found = conn.execute(
                select(events.c.hash).where(events.c.run_id == run_id, events.c.seq == head)
            ).scalar()
        if found is None:
            raise ChainBrokenError(run_id, head, "the head event is missing")
        return head, str(found)

    def read(
        self,
        run_id: str,
        from_seq: int = 0,
        *,
        keep_packed: Container[str] = (),
        keep_text: bool = False,
    ) -> Generator[StoredEvent, None, None]:
        """Stream the run's events with seq > ``from_seq``, in seq order.

        Payloads are returned as they were appended, except for events of the types named
        in ``keep_packed``, which come as stored: their long values may be ``null`` under a
        ``"$packed"`` key (see :mod:`ledger.packing`). For a reader that needs none of those
        values: rebuilding them is most of the cost of reading a long run.

        Events are fetched ``read_chunk`` at a time, each chunk in its own short transaction:
        nothing holds a database snapshot while the caller works through the events, and
        events appended meanwhile are included when the stream reaches them.

        With ``keep_text``, each event keeps its payload's text as stored where that is the
        text its hash covers (SQLite), so that :meth:`StoredEvent.hash_holds` checks it
        without re-encoding the payload: for a reader that checks the chain
        (``runtime.verify.ChainCheck``); it holds each payload twice, as text and parsed.

        :raises RunNotFoundError: at once (not on the first ``next``) if there is no such run.
        """
        self._check_open()
        with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
        return self._stream(run_id, from_seq, MAX_SEQ, keep_packed=keep_packed, keep_text=keep_text)

    def read_one(self, run_id: str, seq: int) -> StoredEvent | None:
        """The run's event at ``seq`` (``None`` if there is none), read alone: :meth:`read`
        fetches a chunk of ``read_chunk`` events to give the first."""
        self._check_open()
        with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
        return next(iter(self._stream(run_id, seq - 1, seq)), None)

    def _stream(
        self,
        run_id: str,
        after: int,
        upto: int,
        *,
        unpack: bool = True,
        keep_packed: Container[str] = (),
        keep_text: bool = False,
    ) -> Generator[StoredEvent, None, None]:
        """Events ``after < seq <= upto`` in seq order.

        Each chunk is fetched as plain rows (text and numbers) and each StoredEvent is built
        only when the caller asks for it: payloads that the caller drops at once then die
        young. Building a chunk's events up front got them promoted through the garbage
        collector's generations, which halved read speed in a process holding a large heap
        (84k against 200k events/s with 100k unrelated dicts alive).
        """
        parse_time = _parse_time if self._sqlite else _as_utc
        parse = parse_canonical_json if self._sqlite else parse_json
        sqlite = self._sqlite
        # SQLite gives back the canonical text the store wrote and hashed; PostgreSQL's
        # JSONB prints a text of its own (spaces, its own key order).
        keep_text = keep_text and sqlite
        unpacker = Unpacker(lambda seq: self._fetch_stored(run_id, seq)) if unpack else None
        for rows in self._chunks(run_id, after, upto, self._fetch_rows):
            for position, seq, type_, version, text, agent, recorded, prev_hash, hash_ in rows:
                try:
                    payload = parse(text)
                    recorded_at = parse_time(recorded)
                except (ValueError, TypeError) as exc:
                    raise ChainBrokenError(
                        run_id, seq, f"stored event cannot be parsed ({_first_line(exc)})"
                    ) from None
                stored = payload
                # Bases are always events of the same type: leaving a type packed leaves
                # nothing the other types need.
                if unpacker is not None and type_ not in keep_packed:
                    size = len(text)
                    if not sqlite and size >= MIN_EVENT_CHARS:
                        size = len(_payload_text(payload))  # PostgreSQL's text has spaces
                    try:
                        payload = unpacker.unpack(seq, type_, agent, payload, size)
                    except PackingError as exc:
                        raise ChainBrokenError(
                            run_id, seq, f"stored event cannot be unpacked ({exc})"
                        ) from None
                yield stored_event(
                    position,
                    run_id,
                    seq,
                    type_,
                    version,
                    payload,
                    agent,
                    recorded_at,
                    prev_hash,
                    hash_,
                    stored=stored if stored is not payload else None,
                    stored_text=text if keep_text else None,
                )

    def _fetch_stored(self, run_id: str, seq: int) -> dict[str, Any]:
        """The payload of one event as it is stored (a packed payload left packed)."""
        parse = parse_canonical_json if self._sqlite else parse_json
        for rows in self._chunks(run_id, seq - 1, seq, self._fetch_rows):
            for _, _, _, _, text, _, _, _, _ in rows:
                return parse(text)  # type: ignore[no-any-return]
        raise PackingError(f"event {seq} is missing")

    def _chunks(
        self,
        run_id: str,
        after: int,
        upto: int,
        fetch: Callable[[Connection, str, int, int], list[_Chunk]],
    ) -> Iterator[list[_Chunk]]:
        """The rows ``fetch`` selects (a :data:`StoredRow` from :meth:`_fetch_rows`; seq
        second in any) in chunks, by keyset pagination on seq; each chunk is one short query,
        so no snapshot stays open while the caller works."""
        while True:
            with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
                chunk = fetch(conn, run_id, after, upto)
            if not chunk:
                return
            yield chunk
            if len(chunk) < self._read_chunk:
                return
            _, after, *_ = chunk[-1]

    def _fetch_rows(self, conn: Connection, run_id: str, after: int, upto: int) -> list[StoredRow]:
        """Full rows ``after < seq <= upto``, at most ``read_chunk`` of them, in seq order."""
        if self._sqlite:
            return self._fetch_sqlite(conn, run_id, after, upto)
        return self._fetch_postgres(conn, run_id, after, upto)

    def _fetch_sqlite(
        self, conn: Connection, run_id: str, after: int, upto: int
    ) -> list[StoredRow]:
        # The sqlite3 connection itself, outside any transaction: one SELECT is its own
        # consistent snapshot, and plain tuples skip SQLAlchemy's row processing.
        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        return raw.execute(_SQLITE_READ, (run_id, after, upto, self._read_chunk)).fetchall()

    def _fetch_postgres(
        self, conn: Connection, run_id: str, after: int, upto: int
    ) -> list[StoredRow]:
        rows = self._postgres_chunk(conn, _PG_READ, run_id, after, upto)
        return typing.cast(list[StoredRow], rows)

    def _postgres_chunk(
        self, conn: Connection, query: Any, run_id: str, after: int, upto: int
    ) -> list[tuple[Any, ...]]:
        """The rows ``query`` (bound by ``p_run_id``, ``p_after``, ``p_upto``, ``p_limit``)
        selects for ``after < seq <= upto``, at most ``read_chunk`` of them, as tuples."""
        result = conn.execute(
            query,
            {"p_run_id": run_id, "p_after": after, "p_upto": upto, "p_limit": self._read_chunk},
        )
        return [tuple(r) for r in result]

    def verify_chain(self, run_id: str) -> ChainReport:
        """Recompute every event's hash from its stored fields and check the links.

        Checks, event by event up to the run's head: seqs are 1, 2, ... without gaps;
        each ``prev_hash`` is the previous event's ``hash`` (64 zeros for seq 1); each
        ``hash`` equals the recomputed one; nothing is stored beyond the head. Reports the
        first failure (see :meth:`ChainReport.raise_if_broken`); the rules and their
        messages are :class:`~ledger.chain.ChainChecker`'s, which ``maai verify`` uses too.
        """
        self._check_open()
        with self._errors(f"verifying run {run_id!r}"), self._engine.connect() as conn:
            head = read_head(conn, run_id)
        chain = ChainChecker(run_id, head)
        sqlite = self._sqlite
        try:
            # As stored: the chain covers the stored (packed) payloads, not what they unpack to.
            for rows in self._chunks(run_id, 0, head, self._fetch_rows):
                for row in rows:
                    # A row whose stored text hashes to its hash holds at its hash: only its
                    # seq and link are left to check (docs/ledger.md, "Checking a hash against
                    # the stored text"). Any other is parsed (ChainBrokenError if it cannot
                    # be) and its payload re-encoded, which says why it does not hold.
                    if sqlite and _stored_text_hashes(run_id, row):
                        hash_holds = _holds
                    else:
                        hash_holds = self._stored_row(run_id, row).hash_holds
                    _, seq, _, _, _, _, _, prev_hash, hash_ = row
                    if not chain.add(seq, prev_hash, hash_, hash_holds):
                        return chain.report()
        except ChainBrokenError as exc:
            chain.unreadable(exc.seq, exc.reason)
            return chain.report()
        chain.end(partial(self._last_seq, run_id))
        return chain.report()

    def _last_seq(self, run_id: str) -> int | None:
        """The highest seq stored for the run beyond its head as it is now; ``None`` when the
        head covers every stored event.

        The chain was checked up to the head read when the check began. A writer that
        appended since (a resume racing this one) moved the head with its events in the same
        transaction, so the head read after them covers them: those are not stray rows, and
        the writer that loses the race is told so by its append (a concurrency error), not by
        a broken chain.
        """
        with self._errors(f"verifying run {run_id!r}"), self._engine.connect() as conn:
            last: int | None = conn.execute(
                select(func.max(events.c.seq)).where(events.c.run_id == run_id)
            ).scalar()
            head_now = read_head(conn, run_id)
        return None if last is None or last <= head_now else last

    def _stored_row(self, run_id: str, row: StoredRow) -> StoredEvent:
        """A full row as the event it stores, its payload as stored (packed or not), parsed
        as :meth:`_stream` parses it; :class:`ChainBrokenError` where it cannot be."""
        position, seq, type_, version, text, agent, recorded, prev_hash, hash_ = row
        try:
            if self._sqlite:
                payload, recorded_at = parse_canonical_json(text), _parse_time(recorded)
            else:
                payload, recorded_at = parse_json(text), _as_utc(recorded)
        except (ValueError, TypeError) as exc:
            raise ChainBrokenError(
                run_id, seq, f"stored event cannot be parsed ({_first_line(exc)})"
            ) from None
        return stored_event(
            position, run_id, seq, type_, version, payload, agent, recorded_at, prev_hash, hash_
        )
