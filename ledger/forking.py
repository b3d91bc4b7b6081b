"""A fork's creation in the store: the child's run row, the parent's first events copied as
they are stored (packed or not, each with its own ``recorded_at``) and chained again under
the child's id, and the event that says so, in one transaction (docs/forks.md).

The copy keeps everything the parent's hashes cover except the run id, so that re-chaining
the child's prefix under the parent's id gives back the parent's hashes: the child carries
the proof that its prefix is the parent's (:func:`prefix_hash_as`)."""

from __future__ import annotations

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
                payload_text = stored_text
                recorded = format_recorded_at(datetime.fromisoformat(stored_at))
            else:
                payload_text = canonical_json(parse_json(stored_text))
                recorded = format_recorded_at(stored_at.astimezone(UTC))
            yield int(seq), type_, int(version), payload_text, agent, recorded


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
    event ``upto + 1``; all or nothing (a kill leaves no child at all)."""
    check_run_id(child_id)
    config_value, config_text = normalize_json(config, f"config of run {child_id!r}")
    rows = list(copied_rows(store, parent_id, upto))
    if len(rows) != upto:
        raise LedgerError(f"run {parent_id!r} has {len(rows)} events, not {upto}")
    now = datetime.now(UTC)
    now_text = format_recorded_at(now)
    forked_row: CopiedRow = (
        upto + 1,
        forked.type,
        forked.schema_version,
        normalized_json_text(forked.payload, "run.forked payload"),
        forked.agent,
        now_text,
    )
    out: list[Row] = [
        (child_id, seq, type_, version, payload, agent, recorded, prev, digest)
        for (seq, type_, version, payload, agent, recorded), prev, digest in chained(
            child_id, [*rows, forked_row]
        )
    ]
    head = upto + 1
    with store._errors(f"creating run {child_id!r}"):  # noqa: SLF001
        try:
            if store.backend == "sqlite":
                with store._write_engine.begin() as conn:  # noqa: SLF001
                    conn.exec_driver_sql(
                        _SQLITE_INSERT_RUN,
                        (child_id, kind, config_text, "created", head, now_text, now_text),
                    )
                    conn.exec_driver_sql(_SQLITE_INSERT_EVENT, out)
            else:
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
                    conn.execute(_PG_INSERT_EVENTS, {"run_id": child_id, "rows": _rows_json(out)})
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


def _rows_json(rows: list[Row]) -> str:
    import json

    return (
        "["
        + ",".join(
            f"[{seq},{json.dumps(type_)},{version},{payload},{json.dumps(agent)},"
            f"{json.dumps(recorded)},{json.dumps(prev_hash)},{json.dumps(hash_)}]"
            for _, seq, type_, version, payload, agent, recorded, prev_hash, hash_ in rows
        )
        + "]"
    )
