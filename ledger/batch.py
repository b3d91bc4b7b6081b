"""One append's events on their way into the database: the rows both backends insert, with
the canonical envelope hashed and chained from the previous event's hash."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from maai.canonical import json_string
from maai.ledger.envelope import NewEvent, envelope_hash, format_recorded_at
from maai.ledger.errors import LedgerError

Row = tuple[str, int, str, int, str, str | None, str, str, str]
"""``(run_id, seq, type, schema_version, payload text, agent, recorded_at text, prev_hash,
hash)``, in the column order of the inserts; read by unpacking it into names."""


class Batch:
    """One append's events, with the rows to insert once the previous hash is known."""

    def __init__(
        self,
        run_id: str,
        expected_seq: int,
        events: list[NewEvent],
        texts: list[str],
        recorded: datetime,
    ) -> None:
        self.run_id = run_id
        self.expected_seq = expected_seq
        self.events = events
        self.texts = texts
        self.recorded = recorded
        self.recorded_text = format_recorded_at(recorded)
        self.new_head = expected_seq + len(events)
        self.rows: list[Row] = []

    def build_rows(self, prev_hash: str) -> list[Row]:
        """``(run_id, seq, type, schema_version, payload text, agent, recorded_at text,
        prev_hash, hash)`` per event, hash-chained from ``prev_hash``.

        The envelope text is :func:`~ledger.envelope.envelope_json`, written out here with
        what every event of a batch shares formatted once (tests hold the two equal): this
        loop runs for every event stored, and the general function's keyword call and string
        concatenations cost as much as hashing."""
        rows: list[Row] = []
        run_id, recorded_text = self.run_id, self.recorded_text
        shared = f',"recorded_at":{json_string(recorded_text)},"run_id":{json_string(run_id)}'
        names: dict[str | None, str] = {None: "null"}
        sha256 = hashlib.sha256
        seq = self.expected_seq
        for new, payload_json in zip(self.events, self.texts, strict=True):
            seq += 1
            type_, agent, version = new.type, new.agent, new.schema_version
            type_json = names.get(type_) or names.setdefault(type_, json_string(type_))
            # None is in ``names`` from the start: json_string only ever sees a name.
            agent_json = names.get(agent) or names.setdefault(agent, json_string(agent or ""))
            envelope = (
                f'{{"agent":{agent_json},"payload":{payload_json},"prev_hash":"{prev_hash}"'
                f'{shared},"schema_version":{version:d},"seq":{seq:d},"type":{type_json}}}'
            )
            try:
                data = envelope.encode()
            except UnicodeEncodeError:
                # The general function names the event and the position of the bad text.
                envelope_hash(
                    run_id=run_id,
                    seq=seq,
                    type=type_,
                    schema_version=version,
                    payload_json=payload_json,
                    agent=agent,
                    recorded_at=recorded_text,
                    prev_hash=prev_hash,
                )
                raise
            digest = sha256(data).hexdigest()
            rows.append(
                (
                    run_id,
                    seq,
                    type_,
                    version,
                    payload_json,
                    agent,
                    recorded_text,
                    prev_hash,
                    digest,
                )
            )
            prev_hash = digest
        self.rows = rows
        return rows


def found_prev_hash(run_id: str, seq: int, found: Any) -> str:
    """The hash read at the run's head seq (``found``: the fetched row ``(hash,)``, or
    None)."""
    if found is None:
        raise LedgerError(
            f"run {run_id!r}: the head is at seq {seq} but that event is missing;"
            " the ledger is damaged (see verify_chain)"
        )
    (hash_,) = found
    return str(hash_)
