"""How a batch is appended on PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sqlalchemy import Connection, DateTime, bindparam, select, text, update

from maai.canonical import json_string
from maai.ledger.batch import Batch, Row, found_prev_hash
from maai.ledger.envelope import GENESIS_HASH
from maai.ledger.errors import ConcurrencyError
from maai.ledger.schema import events, read_head, runs

# Built once: constructing a statement costs more than running it on a warm connection.
_CLAIM: Final = (
    update(runs)
    .where(runs.c.run_id == bindparam("p_run_id"), runs.c.head_seq == bindparam("p_expected"))
    .values(head_seq=bindparam("p_new"), updated_at=bindparam("p_now"))
)
_PREV_HASH: Final = select(events.c.hash).where(
    events.c.run_id == bindparam("p_run_id"), events.c.seq == bindparam("p_seq")
)
# One statement per batch whatever its size, with the rows as one JSON array of arrays that
# PostgreSQL takes apart. A multi-row VALUES list is new SQL text for every batch size, which
# psycopg re-parses each time (5 ms for 100 rows), and text arrays of payloads cost psycopg a
# regex escape per quote; this costs one string join, since the payloads are already JSON.
# Positions come back keyed by seq: the order of RETURNING rows is not promised.
_INSERT: Final = text(
    "INSERT INTO events (run_id, seq, type, schema_version, payload, agent, recorded_at,"
    " prev_hash, hash)"
    " SELECT :run_id, CAST(e->>0 AS BIGINT), e->>1, CAST(e->>2 AS INTEGER), e->3, e->>4,"
    " :recorded_at, e->>5, e->>6"
    " FROM jsonb_array_elements(CAST(:rows AS JSONB)) AS e"
    " RETURNING seq, position"
).bindparams(bindparam("recorded_at", type_=DateTime(timezone=True)))


def _rows_json(rows: list[Row]) -> str:
    encode = json_string
    return (
        "["
        + ",".join(
            f"[{seq},{encode(type_)},{version},{payload},"
            f"{'null' if agent is None else encode(agent)},{encode(prev_hash)},{encode(hash_)}]"
            for _, seq, type_, version, payload, agent, _, prev_hash, hash_ in rows
        )
        + "]"
    )


def append_rows(conn: Connection, batch: Batch) -> Sequence[int]:
    """Claim the run's head, chain and insert the batch's rows (inside the caller's
    transaction); returns the positions in seq order."""
    run_id, expected = batch.run_id, batch.expected_seq
    if not batch.events:
        actual = read_head(conn, run_id)
        if actual != expected:
            raise ConcurrencyError(run_id, expected, actual)
        return []
    claimed = conn.execute(
        _CLAIM,
        {
            "p_run_id": run_id,
            "p_expected": expected,
            "p_new": batch.new_head,
            "p_now": batch.recorded,
        },
    ).rowcount
    if claimed != 1:
        raise ConcurrencyError(run_id, expected, read_head(conn, run_id))
    prev_hash = GENESIS_HASH
    if expected > 0:
        found = conn.execute(_PREV_HASH, {"p_run_id": run_id, "p_seq": expected}).first()
        prev_hash = found_prev_hash(run_id, expected, found)
    rows = batch.build_rows(prev_hash)
    result = conn.execute(
        _INSERT,
        {"run_id": run_id, "recorded_at": batch.recorded, "rows": _rows_json(rows)},
    )
    by_seq = {int(seq): int(position) for seq, position in result}
    return [by_seq[seq] for _, seq, _, _, _, _, _, _, _ in rows]
