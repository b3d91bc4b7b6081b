"""What every part of :class:`~ledger.store.EventStore` shares: its engine and settings,
closing, the store's clock, and the translation of driver errors into ledger errors with
one readable line, and reading the rows of the runs table."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final, Literal, Self

import psycopg
from sqlalchemy import Engine, select
from sqlalchemy import exc as sa_exc

from maai.ledger.disk_full import full_detail, is_disk_full
from maai.ledger.envelope import RunInfo
from maai.ledger.errors import (
    AmbiguousRunIdError,
    LedgerError,
    NotADatabaseError,
    ReadOnlyStoreError,
    RunNotFoundError,
    StoreBusyError,
    StoreFullError,
    StoreUnreachableError,
)
from maai.ledger.migrate import REVISIONS
from maai.ledger.packing import Packer
from maai.ledger.schema import runs
from maai.ledger.sqlite_writer import SqliteWriter
from maai.ledger.stored_json import canonical_order, normalized_json_text
from maai.ledger.urls import StoreLocation

DEFAULT_READ_CHUNK: Final = 500


CHECKPOINTS_FROM: Final = "0003"


def _as_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def utcnow() -> datetime:
    """The store's clock, looked up through this module at each use (tests fix it here)."""
    return datetime.now(UTC)


def _nothing() -> None:
    pass


def _payload_text(value: Any) -> str:
    return normalized_json_text(value, "payload")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _run_info(row: Any) -> RunInfo:
    return RunInfo(
        run_id=row.run_id,
        kind=row.kind,
        # Keys in canonical order on both backends (a JSONB column returns its own order).
        config=canonical_order(row.config),
        status=row.status,
        head_seq=row.head_seq,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class StoreBase:
    """The state an open store holds; :class:`~ledger.store.EventStore` is the class to use."""

    def __init__(
        self,
        engine: Engine,
        location: StoreLocation,
        *,
        schema_revision: str,
        upgraded_from: str | None = None,
        busy_timeout_s: float = 30.0,
        read_chunk: int = DEFAULT_READ_CHUNK,
        read_only: bool = False,
    ) -> None:
        """Use :meth:`open`; this takes an engine already checked against the schema."""
        self._engine = engine
        self.read_only = read_only
        """Opened read-only: every write raises :class:`ReadOnlyStoreError`."""
        self._location = location
        self._sqlite = location.backend == "sqlite"
        # On SQLite the option makes the "begin" hook issue BEGIN IMMEDIATE: a writer takes
        # the write lock (waiting up to busy_timeout) before reading anything, so two writers
        # never deadlock upgrading a read lock.
        self._write_engine = (
            engine.execution_options(maai_begin="IMMEDIATE") if self._sqlite else engine
        )
        self._busy_timeout_s = busy_timeout_s
        self._read_chunk = read_chunk
        self._closed = False
        self._packer = Packer()
        self.pack_repeated_text = True
        """Store what a run repeats as differences against its earlier events (see
        :mod:`ledger.packing`); False stores every payload whole from here on (a database
        other tools read with plain SQL; benchmarks). Reads unpack either way."""
        self._sqlite_writer = (
            SqliteWriter(engine, busy_timeout_s, location.display)
            if self._sqlite and not read_only
            else None
        )
        self.schema_revision = schema_revision
        """The schema revision of the database: the code's head once open, except for a
        store opened read-only, which reads an older known revision as it is."""
        self.upgraded_from = upgraded_from
        """The revision the database was at before :meth:`open` upgraded it (``"empty"``
        for a new database); ``None`` when no upgrade was needed."""

    @property
    def location(self) -> StoreLocation:
        return self._location

    @property
    def backend(self) -> Literal["sqlite", "postgresql"]:
        return self._location.backend

    @property
    def display(self) -> str:
        """The store named for a user: a file path, or the URL without its password."""
        return self._location.display

    def __repr__(self) -> str:
        return f"EventStore({self.display!r})"

    def close(self) -> None:
        """Release every pooled connection. Idempotent."""
        if not self._closed:
            self._closed = True
            if self._sqlite_writer is not None:
                self._sqlite_writer.close()
            self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ the runs table

    def get_run(self, run_id: str) -> RunInfo:
        """The run with this id, or else the only run whose id starts with it.

        :raises RunNotFoundError: no such run; :class:`AmbiguousRunIdError` (a subclass)
            when a prefix matches several.
        """
        self._check_open()
        if not isinstance(run_id, str) or not run_id:
            raise RunNotFoundError(str(run_id), "no run id given")
        with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
            row = conn.execute(select(runs).where(runs.c.run_id == run_id)).first()
            if row is not None:
                return _run_info(row)
            candidates = conn.execute(
                select(runs)
                .where(runs.c.run_id.startswith(run_id, autoescape=True))
                .order_by(runs.c.run_id)
                .limit(50)
            ).all()
        # SQLite's LIKE ignores ASCII case; prefixes are case-sensitive like the ids.
        matches = [r for r in candidates if r.run_id.startswith(run_id)]
        if not matches:
            raise RunNotFoundError(run_id)
        if len(matches) > 1:
            raise AmbiguousRunIdError(run_id, [r.run_id for r in matches])
        return _run_info(matches[0])

    def list_runs(self) -> list[RunInfo]:
        """Every run, oldest first."""
        self._check_open()
        with self._errors("listing runs"), self._engine.connect() as conn:
            rows = conn.execute(select(runs).order_by(runs.c.created_at, runs.c.run_id)).all()
        return [_run_info(row) for row in rows]

    def list_runs_without_config(self) -> list[RunInfo]:
        """Every run, oldest first, with an empty ``config``: the listing a reader that polls
        asks for (rebuilding every config is most of :meth:`list_runs`'s time); the configs
        of the runs it needs come from :meth:`configs`."""
        self._check_open()
        columns = [c for c in runs.c if c.name != "config"]
        with self._errors("listing runs"), self._engine.connect() as conn:
            rows = conn.execute(select(*columns).order_by(runs.c.created_at, runs.c.run_id)).all()
        return [
            RunInfo(
                run_id=row.run_id,
                kind=row.kind,
                config={},
                status=row.status,
                head_seq=row.head_seq,
                created_at=row.created_at,
                updated_at=row.updated_at,
            )
            for row in rows
        ]

    def configs(self, run_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Run id -> its config (keys in canonical order), for the runs named that exist."""
        self._check_open()
        out: dict[str, dict[str, Any]] = {}
        with self._errors("reading run configs"), self._engine.connect() as conn:
            for start in range(0, len(run_ids), 500):
                chunk = list(run_ids[start : start + 500])
                query = select(runs.c.run_id, runs.c.config).where(runs.c.run_id.in_(chunk))
                for row in conn.execute(query):
                    out[row.run_id] = canonical_order(row.config)
        return out

    def _check_open(self) -> None:
        if self._closed:
            raise LedgerError(f"the store {self.display} is closed")

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Translate driver errors into ledger errors with one readable line."""
        try:
            yield
        except LedgerError:
            raise
        except sa_exc.DBAPIError as exc:
            raise self._translate(exc.orig if exc.orig is not None else exc, doing) from exc
        except (sqlite3.Error, psycopg.Error) as exc:
            raise self._translate(exc, doing) from exc
        except sa_exc.SQLAlchemyError as exc:
            raise LedgerError(f"{doing} in {self.display}: {_first_line(exc)}") from exc

    def _translate(self, orig: BaseException, doing: str) -> LedgerError:
        detail = _first_line(orig)
        where = self.display
        if is_disk_full(orig):
            return StoreFullError(
                f"{doing}: {where} is full ({full_detail(orig, detail)}); nothing of this"
                " write was stored"
            )
        if self._sqlite:
            lowered = detail.lower()
            if getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY_SNAPSHOT:
                # Not a lock held for long: a transaction that read first met a commit by
                # another connection when it came to write (writes take BEGIN IMMEDIATE).
                return StoreBusyError(
                    f"{doing}: another writer changed {where} while this transaction read it"
                    f" ({detail})"
                )
            if "locked" in lowered or "busy" in lowered:
                return StoreBusyError(
                    f"{doing}: {where} stayed locked by another writer for more than"
                    f" {self._busy_timeout_s:g}s ({detail})"
                )
            if "file is not a database" in lowered:
                return NotADatabaseError(f"{where} is not a SQLite database ({detail})")
            if "no such table" in lowered:
                return LedgerError(
                    f"{doing}: {where} lacks a ledger table ({detail}); the ledger is damaged"
                )
            if isinstance(orig, sqlite3.OperationalError):
                return StoreUnreachableError(f"{doing}: cannot use {where}: {detail}")
            return LedgerError(f"{doing} in {where} failed: {detail}")
        if isinstance(orig, psycopg.OperationalError):
            return StoreUnreachableError(f"{doing}: cannot reach PostgreSQL at {where}: {detail}")
        return LedgerError(f"{doing} in {where} failed: {detail}")

    def _check_writable(self, doing: str) -> None:
        if self.read_only:
            raise ReadOnlyStoreError(
                f"{doing}: the ledger {self.display} is opened read-only; nothing was written"
            )

    @property
    def _has_checkpoints(self) -> bool:
        revision = self.schema_revision
        return revision not in REVISIONS or REVISIONS.index(revision) >= REVISIONS.index(
            CHECKPOINTS_FROM
        )
