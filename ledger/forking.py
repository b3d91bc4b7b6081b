"""A fork's creation in the store: the child's run row, the parent's first events copied as
they are stored (packed or not, each with its own ``recorded_at``) and chained again under
the child's id, and the event that says so, in one transaction (docs/forks.md).

The copy keeps everything the parent's hashes cover except the run id, so that re-chaining
the child's prefix under the parent's id gives back the parent's hashes: the child carries
the proof that its prefix is the parent's (:func:`prefix_hash_as`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import DateTime, bindparam, text

from maai.canonical import canonical_json
from maai.ledger.batch import Row
from maai.ledger.envelope import (
    GENESIS_HASH,
    NewEvent,
    RunInfo,
    check_run_id,
    envelope_hash,
    format_recorded_at,
)
from maai.ledger.errors import LedgerError, RunExistsError
from maai.ledger.stored_json import normalize_json, normalized_json_text, parse_json

if TYPE_CHECKING:
    from maai.ledger.store import EventStore

CopiedRow = tuple[int, str, int, str, str | None, str]
"""``(seq, type, schema_version, payload text as hashed, agent, recorded_at text)``."""

_SQLITE_INSERT_RUN = (
    "INSERT INTO runs (run_id, kind, config, status, head_seq, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_SQLITE_INSERT_EVENT = (
    "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
    " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_PG_INSERT_RUN = text(
    "INSERT INTO runs (run_id, kind, config, status, head_seq, created_at, updated_at)"
    " VALUES (:run_id, :kind, CAST(:config AS JSONB), :status, :head, :now, :now)"
).bindparams(bindparam("now", type_=DateTime(timezone=True)))
_PG_INSERT_EVENTS = text(
    "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
    " prev_hash, hash)"
    " SELECT :run_id, CAST(e->>0 AS BIGINT), e->>1, CAST(e->>2 AS INTEGER), e->3, e->>4,"
    " CAST(e->>5 AS TIMESTAMPTZ), e->>6, e->>7"
    " FROM jsonb_array_elements(CAST(:rows AS JSONB)) AS e"
)


def copied_rows(store: EventStore, run_id: str, upto: int) -> Iterator[CopiedRow]:
    """The run's events ``1..upto`` as stored, with the text and time each was hashed with."""
    sqlite = store.backend == "sqlite"
    rows_of = store._fetch_rows  # noqa: SLF001 -- the store's own reader
    for rows in store._chunks(run_id, 0, upto, rows_of):  # noqa: SLF001
        for _, seq, type_, version, stored_text, agent, stored_at, _, _ in rows:
            if sqlite:
                payload_text, recorded = stored_text, _recorded_text(stored_at)
            else:
                payload_text = canonical_json(parse_json(stored_text))
                recorded = format_recorded_at(stored_at.astimezone(UTC))
            yield int(seq), type_, int(version), payload_text, agent, recorded


_SCAN_SQLITE = (
    "SELECT seq, type, CASE type"
    " WHEN 'model.requested' THEN json_extract(payload, '$.request.address')"
    " WHEN 'model.completed' THEN json_extract(payload, '$.address') END"
    " FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?"
)
_SCAN_PG = text(
    "SELECT seq, type, CASE type"
    " WHEN 'model.requested' THEN payload->'request'->>'address'"
    " WHEN 'model.completed' THEN payload->>'address' END"
    " FROM events WHERE run_id = :run_id AND seq > :after ORDER BY seq LIMIT :limit"
)
_CALLS = ("model.requested", "model.completed")


def call_addresses(store: EventStore, run_id: str) -> Iterator[tuple[int, str, str | None]]:
    """``(seq, type, address)`` of each of the run's events in seq order, the address of a
    model request or answer (``None`` for any other event): what finding a run's fork
    points reads. The database picks the addresses, so no payload is copied out or
    parsed; an address the store packed (never, in practice: addresses are short) is read
    from the event unpacked. Fetched in chunks, each its own short query."""
    chunk = max(store._read_chunk, 1000)  # noqa: SLF001 -- three short columns a row
    after = 0
    while True:
        with store._errors(f"reading run {run_id!r}"), store._engine.connect() as conn:  # noqa: SLF001
            if store.backend == "sqlite":
                raw = conn.connection.driver_connection
                assert raw is not None
                rows = raw.execute(_SCAN_SQLITE, (run_id, after, chunk)).fetchall()
            else:
                rows = [
                    tuple(r)
                    for r in conn.execute(
                        _SCAN_PG, {"run_id": run_id, "after": after, "limit": chunk}
                    )
                ]
        for seq, type_, address in rows:
            if address is None and type_ in _CALLS:
                event = store.read_one(run_id, seq)
                payload = event.payload if event is not None else {}
                found = payload.get("request", {}) if type_ == _CALLS[0] else payload
                address = found.get("address") if isinstance(found, dict) else None
            yield int(seq), str(type_), address if isinstance(address, str) else None
        if len(rows) < chunk:
            return
        after, _, _ = rows[-1]


def _recorded_text(stored: str) -> str:
    """The hashed text of a ``recorded_at`` stored as text (SQLite): as stored when it has
    the hashed form already (``2026-11-29T07:28:23.253151+00:00``, as the store writes it),
    else parsed and written so."""
    if len(stored) == 32 and stored[10] == "T" and stored.endswith("+00:00"):
        return stored
    return format_recorded_at(datetime.fromisoformat(stored))


def chained(run_id: str, rows: Iterable[CopiedRow]) -> Iterator[tuple[CopiedRow, str, str]]:
    """Each row with its ``prev_hash`` and ``hash`` when chained under ``run_id``."""
    prev = GENESIS_HASH
    for row in rows:
        seq, type_, version, payload_text, agent, recorded = row
        digest = envelope_hash(
            run_id=run_id,
            seq=seq,
            type=type_,
            schema_version=version,
            payload_json=payload_text,
            agent=agent,
            recorded_at=recorded,
            prev_hash=prev,
        )
        yield row, prev, digest
        prev = digest


def prefix_hash_as(store: EventStore, child_id: str, upto: int, parent_id: str) -> str:
    """The hash the child's events ``1..upto`` chain to under the parent's id: the parent's
    hash at ``upto`` if (and only if, as far as sha256 goes) they are the parent's events."""
    last = GENESIS_HASH
    for _, _, digest in chained(parent_id, copied_rows(store, child_id, upto)):
        last = digest
    return last


class _Chain:
    """The child's chain as the database copies the prefix (SQLite, :data:`_SQLITE_COPY`):
    called once per copied row in seq order, it hashes the row under the child's id from the
    stored text, as :func:`chained` does, and gives each row's ``prev_hash``."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.hashes = {0: GENESIS_HASH}
        self.last = 0

    def prev(self, seq: int) -> str:
        return self.hashes[seq - 1]

    def hash(
        self, seq: int, type_: str, version: int, payload: str, agent: str | None, recorded: str
    ) -> str:
        if seq != self.last + 1:  # never: the copy reads 1..upto in seq order
            raise LedgerError(f"copied seq {seq} after {self.last}")
        digest = envelope_hash(
            run_id=self.run_id,
            seq=seq,
            type=type_,
            schema_version=version,
            payload_json=payload,
            agent=agent,
            recorded_at=_recorded_text(recorded),
            prev_hash=self.hashes[seq - 1],
        )
        self.hashes.pop(seq - 2, None)
        self.hashes[seq] = digest
        self.last = seq
        return digest


_SQLITE_COPY = (
    "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
    " prev_hash, hash)"
    " SELECT ?, seq, type, schema_version, payload, agent, recorded_at, maai_fork_prev(seq),"
    " maai_fork_hash(seq, type, schema_version, payload, agent, recorded_at)"
    " FROM events WHERE run_id = ? AND seq <= ? ORDER BY seq"
)
_PG_COPY = text(
    "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
    " prev_hash, hash)"
    " SELECT :child_id, e.seq, e.type, e.schema_version, e.payload, e.agent, e.recorded_at,"
    " h->>1, h->>2"
    " FROM events AS e JOIN jsonb_array_elements(CAST(:hashes AS JSONB)) AS h"
    " ON e.seq = CAST(h->>0 AS BIGINT)"
    " WHERE e.run_id = :parent_id AND e.seq <= :upto"
)


def create_fork(
    store: EventStore,
    *,
    parent_id: str,
    child_id: str,
    upto: int,
    kind: str,
    config: dict[str, Any],
    forked: NewEvent,
) -> RunInfo:
    """Create run ``child_id``: the parent's events ``1..upto`` copied, then ``forked`` as
    event ``upto + 1``; all or nothing (a kill leaves no child at all).

    The prefix is copied by the database in one statement (``INSERT ... SELECT``), its
    payloads never shipped out and back: on SQLite the rows are hashed under the child's id
    as the database copies them, in the same pass (a function it calls per row); on
    PostgreSQL, whose stored JSONB is not the hashed text, the prefix is read once to hash
    it and the database copies the rows beside their hashes."""
    check_run_id(child_id)
    config_value, config_text = normalize_json(config, f"config of run {child_id!r}")
    now = datetime.now(UTC)
    now_text = format_recorded_at(now)
    forked_text = normalized_json_text(forked.payload, "run.forked payload")
    head = upto + 1
    sqlite = store.backend == "sqlite"
    hashes: list[tuple[int, str, str]] = []
    if not sqlite:
        hashes = [
            (seq, prev, digest)
            for (seq, *_), prev, digest in chained(child_id, copied_rows(store, parent_id, upto))
        ]
        if len(hashes) != upto:
            raise LedgerError(f"run {parent_id!r} has {len(hashes)} events, not {upto}")
    with store._errors(f"creating run {child_id!r}"):  # noqa: SLF001
        try:
            if sqlite:
                with store._write_engine.begin() as conn:  # noqa: SLF001
                    conn.exec_driver_sql(
                        _SQLITE_INSERT_RUN,
                        (child_id, kind, config_text, "created", head, now_text, now_text),
                    )
                    chain = _Chain(child_id)
                    raw = conn.connection.driver_connection
                    assert raw is not None
                    raw.create_function("maai_fork_prev", 1, chain.prev)
                    raw.create_function("maai_fork_hash", 6, chain.hash)
                    conn.exec_driver_sql(_SQLITE_COPY, (child_id, parent_id, upto))
                    if chain.last != upto:
                        raise LedgerError(f"run {parent_id!r} has {chain.last} events, not {upto}")
                    prev = chain.hashes[upto]
                    conn.exec_driver_sql(
                        _SQLITE_INSERT_EVENT,
                        _forked_row(child_id, head, forked, forked_text, now_text, prev),
                    )
            else:
                _, _, prev = hashes[-1] if hashes else (0, "", GENESIS_HASH)
                with store._write_engine.begin() as conn:  # noqa: SLF001
                    conn.execute(
                        _PG_INSERT_RUN,
                        {
                            "run_id": child_id,
                            "kind": kind,
                            "config": config_text,
                            "status": "created",
                            "head": head,
                            "now": now,
                        },
                    )
                    copied = conn.execute(
                        _PG_COPY,
                        {
                            "child_id": child_id,
                            "parent_id": parent_id,
                            "upto": upto,
                            "hashes": json.dumps(hashes),
                        },
                    ).rowcount
                    if copied != upto:
                        raise LedgerError(f"run {parent_id!r} has {copied} events, not {upto}")
                    row = _forked_row(child_id, head, forked, forked_text, now_text, prev)
                    conn.execute(_PG_INSERT_EVENTS, {"run_id": child_id, "rows": _rows_json([row])})
        except Exception as exc:
            if "UNIQUE" in str(exc) or "duplicate key" in str(exc):
                raise RunExistsError(child_id) from None
            raise
    return RunInfo(
        run_id=child_id,
        kind=kind,
        config=config_value,
        status="created",
        head_seq=head,
        created_at=now,
        updated_at=now,
    )


def _forked_row(
    child_id: str, seq: int, forked: NewEvent, payload: str, recorded: str, prev: str
) -> Row:
    """The row of the child's ``run.forked``, chained after its copied prefix."""
    digest = envelope_hash(
        run_id=child_id,
        seq=seq,
        type=forked.type,
        schema_version=forked.schema_version,
        payload_json=payload,
        agent=forked.agent,
        recorded_at=recorded,
        prev_hash=prev,
    )
    return (
        child_id,
        seq,
        forked.type,
        forked.schema_version,
        payload,
        forked.agent,
        recorded,
        prev,
        digest,
    )


def _rows_json(rows: list[Row]) -> str:
    return (
        "["
        + ",".join(
            f"[{seq},{json.dumps(type_)},{version},{payload},{json.dumps(agent)},"
            f"{json.dumps(recorded)},{json.dumps(prev_hash)},{json.dumps(hash_)}]"
            for _, seq, type_, version, payload, agent, recorded, prev_hash, hash_ in rows
        )
        + "]"
    )
