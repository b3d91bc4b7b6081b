"""An adversary with write access to a ledger, on SQLite or PostgreSQL: the append-only
triggers switched off, rows deleted or rewritten, and hashes recomputed with the published
recipe (docs/ledger.md) so that the chain itself holds again."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from maai.canonical import canonical_json
from maai.ledger import EventStore, envelope_hash, format_recorded_at, resolve_store_url
from tests.conftest import libpq_dsn

Edit = Callable[[dict[str, Any]], dict[str, Any]]


class Adversary:
    def __init__(self, url: str) -> None:
        self.url = url
        self.location = resolve_store_url(url)

    @property
    def sqlite(self) -> bool:
        return self.location.path is not None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection with every trigger on events and checkpoints out of the way."""
        if self.sqlite:
            lite = sqlite3.connect(str(self.location.path), isolation_level=None)
            triggers = lite.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
            ).fetchall()
            for name, _ in triggers:
                lite.execute(f"DROP TRIGGER {name}")
            try:
                yield lite
            finally:
                for _, text in triggers:
                    lite.execute(text)
                lite.close()
            return
        dsn = libpq_dsn(self.location.url.render_as_string(hide_password=False))
        with psycopg.connect(dsn, autocommit=True) as conn:
            for table in ("events", "checkpoints"):
                conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            try:
                yield conn
            finally:
                for table in ("events", "checkpoints"):
                    conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")

    def sql(self, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """One statement, ``?`` placeholders on either backend."""
        with self._connection() as conn:
            if self.sqlite:
                return list(conn.execute(statement, params).fetchall())
            cursor = conn.execute(statement.replace("?", "%s"), params)
            return list(cursor.fetchall()) if cursor.description else []

    def delete_checkpoints(self, run_id: str, where: str = "") -> None:
        self.sql(f"DELETE FROM checkpoints WHERE run_id = ? {where}", (run_id,))

    def cut(self, run_id: str, seq: int, status: str) -> None:
        """The run truncated to ``seq`` and re-marked."""
        self.sql("DELETE FROM events WHERE run_id = ? AND seq > ?", (run_id, seq))
        self.sql(
            "UPDATE runs SET head_seq = ?, status = ? WHERE run_id = ?", (seq, status, run_id)
        )

    def set_status(self, run_id: str, status: str) -> None:
        self.sql("UPDATE runs SET status = ? WHERE run_id = ?", (status, run_id))

    def rewrite(self, run_id: str, edits: dict[int, Edit]) -> None:
        """Each edited event's payload rewritten, and every hash from the first edit on
        recomputed, as a careful forger would: the chain itself then holds."""
        first = min(edits)
        with EventStore.open(self.url) as store:
            stored = list(store.read(run_id, from_seq=first - 1))
        prev: str | None = None
        with self._connection() as conn:
            for event in stored:
                payload = event.payload
                if event.seq in edits:
                    payload = edits[event.seq](payload)
                text = canonical_json(payload)
                prev_hash = prev if prev is not None else event.prev_hash
                digest = envelope_hash(
                    run_id=run_id,
                    seq=event.seq,
                    type=event.type,
                    schema_version=event.schema_version,
                    payload_json=text,
                    agent=event.agent,
                    recorded_at=format_recorded_at(event.recorded_at),
                    prev_hash=prev_hash,
                )
                if event.seq in edits:
                    cast = "?" if self.sqlite else "CAST(%s AS jsonb)"
                    mark = "?" if self.sqlite else "%s"
                    conn.execute(
                        f"UPDATE events SET payload = {cast}, prev_hash = {mark}, hash = {mark} "
                        f"WHERE run_id = {mark} AND seq = {mark}",
                        (text, prev_hash, digest, run_id, event.seq),
                    )
                else:
                    mark = "?" if self.sqlite else "%s"
                    conn.execute(
                        f"UPDATE events SET prev_hash = {mark}, hash = {mark} "
                        f"WHERE run_id = {mark} AND seq = {mark}",
                        (prev_hash, digest, run_id, event.seq),
                    )
                prev = digest

    def seqs(self, run_id: str, type_: str) -> list[int]:
        rows = self.sql(
            "SELECT seq FROM events WHERE run_id = ? AND type = ? ORDER BY seq", (run_id, type_)
        )
        return [int(r[0]) for r in rows]
