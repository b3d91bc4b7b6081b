"""The event store: runs, append-only hash-chained events, optimistic concurrency.

One :class:`EventStore` wraps one SQLAlchemy engine and may be shared by threads; every call
takes its own pooled connection and transaction, except SQLite appends, which go through one
connection the store keeps for them (:mod:`ledger.sqlite_writer`). Several processes may open
the same database; appends to one run are serialized by the database.

The append paths of the two backends are :mod:`ledger.sqlite_writer` and
:mod:`ledger.postgres_writer`, both inserting the rows of a :class:`~ledger.batch.Batch`;
checks on a SQLite file before it is opened are in :mod:`ledger.sqlite_files`.

How an append stays race-free on both backends: inside one transaction it first runs
``UPDATE runs SET head_seq = :new WHERE run_id = :id AND head_seq = :expected`` and checks
that exactly one row changed, then inserts the events. On PostgreSQL the update takes the
run's row lock, and a second writer blocked on it re-checks ``head_seq`` after the first
commits, finds it moved and changes nothing. On SQLite writers start with ``BEGIN IMMEDIATE``
and so run one at a time. ``UNIQUE(run_id, seq)`` is the backstop: a violation of it is also
reported as :class:`~ledger.errors.ConcurrencyError`, and a fork of history cannot be stored.
"""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from functools import partial
from types import TracebackType
from typing import Any, Final, Literal

import psycopg
from sqlalchemy import (
    Connection,
    DateTime,
    Engine,
    Text,
    bindparam,
    cast,
    create_engine,
    event,
    func,
    insert,
    select,
    type_coerce,
    update,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.pool import ConnectionPoolEntry

from maai.ledger import postgres_writer, sqlite_writer
from maai.ledger.batch import Batch, Row
from maai.ledger.chain import ChainChecker
from maai.ledger.disk_full import full_detail, is_disk_full
from maai.ledger.envelope import (
    Appended,
    ChainReport,
    Checkpoint,
    NewEvent,
    RunInfo,
    StoredEvent,
    canonical_order,
    check_label,
    check_run_id,
    checked_json_text,
    encoded_json_parts,
    normalize_json,
    normalized_json_text,
    parse_canonical_json,
    parse_json,
    stored_event,
    stored_text_hash_holds,
)
from maai.ledger.errors import (
    AmbiguousRunIdError,
    ChainBrokenError,
    ConcurrencyError,
    InvalidEventError,
    LedgerError,
    NotADatabaseError,
    ReadOnlyStoreError,
    RunExistsError,
    RunNotFoundError,
    SchemaBehindError,
    SchemaTooNewError,
    StoreBusyError,
    StoreFullError,
    StoreUnreachableError,
)
from maai.ledger.fields import (
    FieldPaths,
    checked_paths,
    omitted,
    pick,
    sqlite_payload_column,
    sqlite_size_column,
)
from maai.ledger.migrate import REVISIONS, SchemaStatus, schema_status, upgrade_to_head
from maai.ledger.packing import MIN_EVENT_CHARS, PACKED_KEY, Packer, PackingError, Unpacker
from maai.ledger.reserve import keep_reserve, release_reserve
from maai.ledger.schema import checkpoints, events, read_head, runs
from maai.ledger.sqlite_files import (
    check_sqlite_path,
    check_sqlite_readable,
    read_only_uri,
    remove_if_empty,
    writable,
)
from maai.ledger.sqlite_writer import SqliteWriter
from maai.ledger.urls import StoreLocation, resolve_store_url

SQLITE_SYNCHRONOUS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
INITIAL_STATUS: Final = "created"
DEFAULT_READ_CHUNK: Final = 500

# Columns in the order every read query returns them.
_EVENT_COLUMNS: Final = (
    "position, seq, type, schema_version, payload, agent, recorded_at, prev_hash, hash"
)
_SQLITE_READ: Final = (
    f"SELECT {_EVENT_COLUMNS} FROM events WHERE run_id = ? AND seq > ? AND seq <= ?"
    " ORDER BY seq LIMIT ?"
)
_MAX_SEQ: Final = 2**63 - 1
# The first revision whose tables each read needs: a ledger behind the code but at least at
# this revision can be read without an upgrade (a read-only open never upgrades). Checkpoints
# came with 0003; a ledger without them simply has none.
READABLE_FROM: Final = "0001"
CHECKPOINTS_FROM: Final = "0003"

_PG_READ: Final = (
    select(
        events.c.position,
        events.c.seq,
        events.c.type,
        events.c.schema_version,
        # As text, parsed when the event is built (see EventStore._stream).
        cast(events.c.payload, Text),
        events.c.agent,
        type_coerce(events.c.recorded_at, DateTime(timezone=True)),
        events.c.prev_hash,
        events.c.hash,
    )
    .where(
        events.c.run_id == bindparam("p_run_id"),
        events.c.seq > bindparam("p_after"),
        events.c.seq <= bindparam("p_upto"),
    )
    .order_by(events.c.seq)
    .limit(bindparam("p_limit"))
)


_parse_time: Final = datetime.fromisoformat
_PACKED_KEY_TEXT: Final = f'"{PACKED_KEY}":'


def _as_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


class EventStore:
    """Append-only, hash-chained event store on SQLite or PostgreSQL.

    Open with :meth:`open`; use as a context manager or call :meth:`close`.
    """

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

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        synchronous: str = "FULL",
        upgrade: bool | None = None,
        busy_timeout_s: float = 30.0,
        read_chunk: int = DEFAULT_READ_CHUNK,
        read_only: bool | None = False,
    ) -> EventStore:
        """Open (and, where allowed, create or upgrade) the store at ``url``.

        ``url``: a file path, ``sqlite:///PATH``, ``postgresql://...``; ``None`` means
        ``$MAAI_DB`` or the per-user default file (see :mod:`ledger.urls`).

        ``upgrade``: whether a database whose schema is behind the code (a new, empty one
        included) is upgraded here. The default, ``None``, upgrades SQLite files (a private,
        embedded store) and refuses PostgreSQL databases with :class:`SchemaBehindError`
        (a shared server is upgraded deliberately, with ``maai db upgrade``). A schema newer
        than the code is always refused with :class:`SchemaTooNewError`.

        ``synchronous``: SQLite's ``PRAGMA synchronous`` (``FULL`` survives power loss at
        every commit; ``NORMAL`` may lose the last commits but never corrupts in WAL mode).
        ``busy_timeout_s``: how long a SQLite writer waits for the write lock before
        :class:`StoreBusyError`. ``read_chunk``: events fetched per query by :meth:`read`.

        ``read_only``: open without writing anything, ever (a published ledger, read-only
        media): nothing is created, WAL mode is not switched on, the schema is not upgraded
        (a schema behind the code is read as it is when its revision is known), and every
        write raises :class:`ReadOnlyStoreError`. ``None``: read-only exactly when an
        existing SQLite file, or its folder, cannot be written (never for PostgreSQL).
        """
        location = resolve_store_url(url)
        if read_chunk < 1:
            raise ValueError("read_chunk must be at least 1")
        if busy_timeout_s < 0 or busy_timeout_s != busy_timeout_s:
            raise ValueError(f"busy_timeout_s must be a number >= 0, not {busy_timeout_s!r}")
        if read_only is None:
            path = location.path
            read_only = path is not None and path.is_file() and not writable(path)
        if read_only and upgrade:
            raise ValueError("a store opened read-only cannot be upgraded")
        if location.backend == "sqlite":
            mode = synchronous.upper()
            if mode not in SQLITE_SYNCHRONOUS:
                raise ValueError(
                    f"synchronous must be one of {', '.join(SQLITE_SYNCHRONOUS)},"
                    f" not {synchronous!r}"
                )
            if read_only:
                return cls._open_sqlite_read_only(
                    location, busy_timeout_s=busy_timeout_s, read_chunk=read_chunk
                )
            return cls._open_sqlite(
                location,
                synchronous=mode,
                upgrade=True if upgrade is None else upgrade,
                busy_timeout_s=busy_timeout_s,
                read_chunk=read_chunk,
            )
        return cls._open_postgres(
            location,
            upgrade=bool(upgrade),
            busy_timeout_s=busy_timeout_s,
            read_chunk=read_chunk,
            read_only=read_only,
        )

    @classmethod
    def _open_sqlite(
        cls,
        location: StoreLocation,
        *,
        synchronous: str,
        upgrade: bool,
        busy_timeout_s: float,
        read_chunk: int,
    ) -> EventStore:
        assert location.path is not None
        path = location.path
        created = check_sqlite_path(path, location=location, upgrade=upgrade)
        engine = create_engine(
            location.url,
            connect_args={"timeout": busy_timeout_s, "isolation_level": None},
        )
        busy_ms = max(0, int(busy_timeout_s * 1000))

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: sqlite3.Connection, _: ConnectionPoolEntry) -> None:
            # isolation_level=None stops the sqlite3 module from issuing its own BEGINs; the
            # "begin" hook below issues them, so SQLAlchemy's transactions are real ones.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
                cursor.execute("PRAGMA foreign_keys = ON")
                cursor.execute(f"PRAGMA synchronous = {synchronous}")
            finally:
                cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Connection) -> None:
            mode = connection.get_execution_options().get("maai_begin", "DEFERRED")
            connection.exec_driver_sql(f"BEGIN {mode}")

        store = cls(
            engine,
            location,
            schema_revision="",
            busy_timeout_s=busy_timeout_s,
            read_chunk=read_chunk,
        )
        try:
            store._settle_schema(upgrade)
        except BaseException:
            engine.dispose()
            if created:
                remove_if_empty(path)
            raise
        return store

    @classmethod
    def _open_sqlite_read_only(
        cls, location: StoreLocation, *, busy_timeout_s: float, read_chunk: int
    ) -> EventStore:
        assert location.path is not None
        path = location.path
        check_sqlite_readable(path)
        uri = read_only_uri(path)

        def connect() -> sqlite3.Connection:
            return sqlite3.connect(
                uri,
                uri=True,
                timeout=busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )

        engine = create_engine("sqlite+pysqlite://", creator=connect)
        busy_ms = max(0, int(busy_timeout_s * 1000))

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: sqlite3.Connection, _: ConnectionPoolEntry) -> None:
            dbapi_connection.isolation_level = None
            dbapi_connection.execute(f"PRAGMA busy_timeout = {busy_ms}")

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Connection) -> None:
            connection.exec_driver_sql("BEGIN DEFERRED")

        store = cls(
            engine,
            location,
            schema_revision="",
            busy_timeout_s=busy_timeout_s,
            read_chunk=read_chunk,
            read_only=True,
        )
        try:
            store._settle_schema(upgrade=False)
        except BaseException:
            engine.dispose()
            raise
        return store

    @classmethod
    def _open_postgres(
        cls,
        location: StoreLocation,
        *,
        upgrade: bool,
        busy_timeout_s: float,
        read_chunk: int,
        read_only: bool = False,
    ) -> EventStore:
        # Read-only: every transaction is READ ONLY on the server too, so that no code path
        # of a reader (maai view) can write, whatever it calls.
        options = {"postgresql_readonly": True} if read_only else {}
        engine = create_engine(location.url, pool_pre_ping=True, execution_options=options)
        store = cls(
            engine,
            location,
            schema_revision="",
            busy_timeout_s=busy_timeout_s,
            read_chunk=read_chunk,
            read_only=read_only,
        )
        try:
            store._settle_schema(upgrade)
        except BaseException:
            engine.dispose()
            raise
        return store

    def _settle_schema(self, upgrade: bool) -> None:
        """Check the schema; upgrade it if allowed and needed; refuse otherwise."""
        with self._errors("opening the ledger"):
            with self._engine.connect() as conn:
                status = schema_status(conn)
            self._refuse_unusable(status)
            if self.read_only:
                self.schema_revision = self._readable_revision(status)
                return
            if status.state != "current" and not upgrade:
                raise self._behind_error(status)
            if self._sqlite:
                # Only now, once the file is known to be a ledger we will use (or empty): WAL
                # mode is written into the file's header, and a refused file stays untouched.
                with self._engine.connect() as conn:
                    raw = conn.connection.driver_connection
                    assert isinstance(raw, sqlite3.Connection)
                    raw.execute("PRAGMA journal_mode = WAL")
            if status.state == "current":
                assert status.current is not None
                self.schema_revision = status.current
                return
            with self._write_engine.begin() as conn:
                upgrade_to_head(conn)
            with self._engine.connect() as conn:
                after = schema_status(conn)
            self._refuse_unusable(after)
            if after.state != "current":
                raise LedgerError(
                    f"upgrading {self.display} left it at revision {after.current},"
                    f" not {after.head}"
                )
            assert after.current is not None
            self.schema_revision = after.current
            self.upgraded_from = status.current or "empty"

    def _readable_revision(self, status: SchemaStatus) -> str:
        """The revision a read-only open reads the database at; refuses one it cannot read
        without an upgrade (which a read-only open never makes)."""
        current = status.current
        if status.state == "current" and current is not None:
            return current
        if current is None:
            raise SchemaBehindError(
                f"{self.display} has no ledger schema (it is opened read-only, so nothing was"
                " created)",
                current=None,
                head=status.head,
            )
        if current in REVISIONS and REVISIONS.index(current) >= REVISIONS.index(READABLE_FROM):
            return current
        raise SchemaBehindError(
            f"{self.display} is at schema revision {current}, which this version of maai"
            f" reads only after an upgrade to {status.head}, and it is opened read-only:"
            " upgrade a writable copy (copy the file, then: maai db upgrade --db COPY)",
            current=current,
            head=status.head,
        )

    @property
    def _has_checkpoints(self) -> bool:
        revision = self.schema_revision
        return revision not in REVISIONS or REVISIONS.index(revision) >= REVISIONS.index(
            CHECKPOINTS_FROM
        )

    def _check_writable(self, doing: str) -> None:
        if self.read_only:
            raise ReadOnlyStoreError(
                f"{doing}: the ledger {self.display} is opened read-only; nothing was written"
            )

    def _refuse_unusable(self, status: SchemaStatus) -> None:
        if status.state == "foreign":
            shown = ", ".join(status.tables[:5])
            raise NotADatabaseError(
                f"{self.display} is a SQLite database but not a maai ledger (it has tables"
                f" {shown} and no schema revision); it was left untouched"
            )
        if status.state == "too_new":
            raise SchemaTooNewError(
                f"{self.display} is at schema revision {status.current}, which this version"
                f" of maai does not know (it knows up to {status.head}): it was written by a"
                " newer maai, or its alembic_version table belongs to another application;"
                " upgrade maai or use another database",
                current=status.current or "",
            )

    def _behind_error(self, status: SchemaStatus) -> SchemaBehindError:
        where = (
            "has no ledger schema yet"
            if status.current is None
            else f"is at schema revision {status.current}"
        )
        return SchemaBehindError(
            f"{self.display} {where}; this code needs revision {status.head}."
            f" Run: maai db upgrade --db {shlex.quote(self._location.display)}",
            current=status.current,
            head=status.head,
        )

    # ------------------------------------------------------------------ properties

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

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Release every pooled connection. Idempotent."""
        if not self._closed:
            self._closed = True
            if self._sqlite_writer is not None:
                self._sqlite_writer.close()
            self._engine.dispose()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ runs

    def create_run(self, run_id: str, kind: str, config: dict[str, Any]) -> RunInfo:
        """Create an empty run (head seq 0, status ``created``). ``config`` is stored as
        given, normalized like payloads: remove secrets before."""
        self._check_open()
        self._check_writable(f"creating run {run_id!r}")
        check_run_id(run_id)
        check_label(kind, "run kind", 100)
        if not isinstance(config, dict):
            raise InvalidEventError(f"run config must be a dict, not {type(config).__name__}")
        config_value, _ = normalize_json(config, f"config of run {run_id!r}")
        now = _utcnow()
        with self._errors(f"creating run {run_id!r}"):
            try:
                with self._write_engine.begin() as conn:
                    conn.execute(
                        insert(runs).values(
                            run_id=run_id,
                            kind=kind,
                            config=config_value,
                            status=INITIAL_STATUS,
                            head_seq=0,
                            created_at=now,
                            updated_at=now,
                        )
                    )
            except sa_exc.IntegrityError:
                raise RunExistsError(run_id) from None
        return RunInfo(
            run_id=run_id,
            kind=kind,
            config=config_value,
            status=INITIAL_STATUS,
            head_seq=0,
            created_at=now,
            updated_at=now,
        )

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
            rows = conn.execute(
                select(*columns).order_by(runs.c.created_at, runs.c.run_id)
            ).all()
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

    def set_status(self, run_id: str, status: str) -> RunInfo:
        """Set a run's status (free text of at most 64 characters, e.g. ``running``,
        ``completed``, ``failed``) and return the updated run."""
        self._check_open()
        self._check_writable(f"setting the status of run {run_id!r}")
        check_label(status, "run status", 64)
        try:
            return self._set_status(run_id, status)
        except StoreFullError:
            path = self._location.path
            if not self._sqlite or path is None:
                raise
            # A run stopped by a full disk is left interrupted, not running: the update is
            # tried again in the room of the reserve (ledger.reserve), or else once the
            # write-ahead log is checkpointed (a file-size limit leaves room for that).
            if release_reserve(path):
                with suppress(StoreFullError):
                    return self._set_status(run_id, status)
            with self._errors(f"setting the status of run {run_id!r}"):
                pooled = self._engine.raw_connection()  # a checkpoint takes no transaction
                try:
                    pooled.driver_connection.execute("PRAGMA wal_checkpoint(RESTART)")
                finally:
                    pooled.close()
            return self._set_status(run_id, status)

    def keep_reserve(self) -> None:
        """SQLite: keep the small file beside the ledger that lets a run's status be written
        on a full disk (:mod:`ledger.reserve`); nothing elsewhere. A writer that runs
        experiments calls it before it starts."""
        if self._sqlite and not self.read_only and self._location.path is not None:
            keep_reserve(self._location.path)

    def _set_status(self, run_id: str, status: str) -> RunInfo:
        with (
            self._errors(f"setting the status of run {run_id!r}"),
            self._write_engine.begin() as conn,
        ):
            changed = conn.execute(
                update(runs)
                .where(runs.c.run_id == run_id)
                .values(status=status, updated_at=_utcnow())
            ).rowcount
            if changed != 1:
                raise RunNotFoundError(run_id)
            row = conn.execute(select(runs).where(runs.c.run_id == run_id)).one()
        return _run_info(row)

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

    # ------------------------------------------------------------------ events

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
        recorded = _utcnow()
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
            Appended(position, row[1], recorded, row[7], row[8])
            for position, row in zip(positions, batch.rows, strict=True)
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

    def read(
        self,
        run_id: str,
        from_seq: int = 0,
        *,
        keep_packed: Container[str] = (),
        keep_text: bool = False,
    ) -> Iterator[StoredEvent]:
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
        return self._stream(
            run_id, from_seq, _MAX_SEQ, keep_packed=keep_packed, keep_text=keep_text
        )

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
    ) -> Iterator[StoredEvent]:
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
        for rows in self._chunks(run_id, after, upto):
            for r in rows:
                try:
                    payload = parse(r[4])
                    recorded_at = parse_time(r[6])
                except (ValueError, TypeError) as exc:
                    raise ChainBrokenError(
                        run_id, r[1], f"stored event cannot be parsed ({_first_line(exc)})"
                    ) from None
                stored = payload
                # Bases are always events of the same type: leaving a type packed leaves
                # nothing the other types need.
                if unpacker is not None and r[2] not in keep_packed:
                    size = len(r[4])
                    if not sqlite and size >= MIN_EVENT_CHARS:
                        size = len(_payload_text(payload))  # PostgreSQL's text has spaces
                    try:
                        payload = unpacker.unpack(r[1], r[2], r[5], payload, size)
                    except PackingError as exc:
                        raise ChainBrokenError(
                            run_id, r[1], f"stored event cannot be unpacked ({exc})"
                        ) from None
                yield stored_event(
                    r[0],
                    run_id,
                    r[1],
                    r[2],
                    r[3],
                    payload,
                    r[5],
                    recorded_at,
                    r[7],
                    r[8],
                    stored=stored if stored is not payload else None,
                    stored_text=r[4] if keep_text else None,
                )

    def read_fields(
        self,
        run_id: str,
        fields: FieldPaths,
        from_seq: int = 0,
        *,
        as_text: bool = False,
        omit: FieldPaths | None = None,
    ) -> Iterator[tuple[int, str, int, dict[str, Any] | str]]:
        """Stream ``(seq, type, schema_version, payload)`` of the run's events with seq >
        ``from_seq``, in seq order: what a fold reads, at less cost than :meth:`read`.

        Payloads are returned as they were appended, except for events of the types named in
        ``fields``: their payload is ``{path: value}`` of the dotted paths given for the type
        (``"request.address"``), ``None`` where a path is missing or ``null``; and for events
        of the types named in ``omit``: their payload less the dotted paths given for the
        type. On SQLite the database picks those values (or removes those paths), so the rest
        of a long payload is neither fetched, parsed nor unpacked (:mod:`ledger.fields`). No
        :class:`StoredEvent` is built. Chunks are fetched as by :meth:`read`.

        With ``as_text``, a payload that the store need not parse (on SQLite: one stored whole
        and too short to be a base that later events are packed against) comes as its JSON
        text, a ``str``, for the caller to parse or to validate straight from the text
        (pydantic's ``model_validate_json``, which is about as fast as parsing it alone).

        :raises RunNotFoundError: at once (not on the first ``next``) if there is no such run.
        :raises ValueError: at once, for a path that is not dotted keys, or a type named in
            both ``fields`` and ``omit``.
        """
        checked = checked_paths(fields)
        left_out = checked_paths(omit or {})
        if both := set(checked) & set(left_out):
            raise ValueError(f"types both picked from and left out of: {sorted(both)}")
        self._check_open()
        with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
        return self._stream_fields(run_id, from_seq, checked, left_out, as_text and self._sqlite)

    def _stream_fields(
        self,
        run_id: str,
        after: int,
        fields: dict[str, tuple[str, ...]],
        omit: dict[str, tuple[str, ...]],
        as_text: bool,
    ) -> Iterator[tuple[int, str, int, dict[str, Any] | str]]:
        sqlite = self._sqlite
        parse = parse_canonical_json if sqlite else parse_json
        unpacker = Unpacker(lambda seq: self._fetch_stored(run_id, seq))
        fetch: Callable[[Connection, str, int, int], list[Row]] | None = None
        if sqlite:  # the first columns of a full row, picked values in the payload's place,
            # and the stored length of a payload with paths removed
            column, params = sqlite_payload_column(fields, omit)
            size_column, size_params = sqlite_size_column(omit)
            query = (
                f"SELECT position, seq, type, schema_version, {column}, agent, {size_column}"
                " FROM events WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?"
            )
            params += size_params

            def fetch(conn: Connection, run_id: str, after: int, upto: int) -> list[Row]:
                raw = conn.connection.driver_connection
                assert isinstance(raw, sqlite3.Connection)
                arguments = (*params, run_id, after, upto, self._read_chunk)
                return raw.execute(query, arguments).fetchall()

        named = fields.keys() | omit.keys()
        for rows in self._chunks(run_id, after, _MAX_SEQ, fetch):
            for r in rows:
                type_, text = r[2], r[4]
                # What the unpacker would leave alone, as text. Canonical JSON holds the
                # key's text only where it is a key: a quote inside a string is escaped.
                if (
                    as_text
                    and type_ not in named
                    and len(text) < MIN_EVENT_CHARS
                    and _PACKED_KEY_TEXT not in text
                ):
                    yield r[1], type_, r[3], text
                    continue
                seq, agent = r[1], r[5]
                paths = fields.get(type_)
                left_out = omit.get(type_)
                # On SQLite, the length of the payload as stored, the paths removed or not.
                size = len(text) if left_out is None or not sqlite else r[6]
                if (
                    as_text
                    and left_out is not None
                    and size < MIN_EVENT_CHARS
                    and _PACKED_KEY_TEXT not in text
                ):
                    yield seq, type_, r[3], text
                    continue
                try:
                    payload = parse(text)
                    if paths is not None:
                        payload = (
                            dict(zip(paths, payload, strict=True))
                            if sqlite
                            else pick(payload, paths)
                        )
                        if None in payload.values():  # perhaps packed: read it whole
                            payload = pick(self._fetch_logical(run_id, seq, type_, agent), paths)
                    else:
                        if not sqlite and size >= MIN_EVENT_CHARS:
                            size = len(_payload_text(payload))  # PostgreSQL's text has spaces
                        if left_out is not None and sqlite:
                            # Removed by the database; what rebuilt them goes too. The values
                            # left are packed against values at the same paths only.
                            payload = omitted(payload, left_out)
                        payload = unpacker.unpack(seq, type_, agent, payload, size)
                        if left_out is not None and not sqlite:
                            payload = omitted(payload, left_out)
                except (ValueError, TypeError, PackingError) as exc:
                    raise ChainBrokenError(
                        run_id, seq, f"stored event cannot be read ({_first_line(exc)})"
                    ) from None
                yield seq, type_, r[3], payload

    def _fetch_logical(
        self, run_id: str, seq: int, type_: str, agent: str | None
    ) -> dict[str, Any]:
        """One event's payload as appended, unpacked on its own (its bases fetched)."""
        stored = self._fetch_stored(run_id, seq)
        if PACKED_KEY not in stored:
            return stored
        return Unpacker(lambda s: self._fetch_stored(run_id, s)).unpack(
            seq, type_, agent, stored, MIN_EVENT_CHARS
        )

    def _fetch_stored(self, run_id: str, seq: int) -> dict[str, Any]:
        """The payload of one event as it is stored (a packed payload left packed)."""
        parse = parse_canonical_json if self._sqlite else parse_json
        for rows in self._chunks(run_id, seq - 1, seq):
            return parse(rows[0][4])  # type: ignore[no-any-return]
        raise PackingError(f"event {seq} is missing")

    def _chunks(
        self,
        run_id: str,
        after: int,
        upto: int,
        fetch: Callable[[Connection, str, int, int], list[Row]] | None = None,
    ) -> Iterator[list[Row]]:
        """Rows ``(position, seq, type, schema_version, payload JSON text, agent,
        recorded_at, prev_hash, hash)`` (or what ``fetch`` selects, seq second) in chunks, by
        keyset pagination on seq; each chunk is one short query, so no snapshot stays open
        while the caller works."""
        if fetch is None:
            fetch = self._fetch_sqlite if self._sqlite else self._fetch_postgres
        while True:
            with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
                chunk = fetch(conn, run_id, after, upto)
            if not chunk:
                return
            yield chunk
            if len(chunk) < self._read_chunk:
                return
            after = chunk[-1][1]

    def _fetch_sqlite(self, conn: Connection, run_id: str, after: int, upto: int) -> list[Row]:
        # The sqlite3 connection itself, outside any transaction: one SELECT is its own
        # consistent snapshot, and plain tuples skip SQLAlchemy's row processing.
        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        return raw.execute(_SQLITE_READ, (run_id, after, upto, self._read_chunk)).fetchall()

    def _fetch_postgres(self, conn: Connection, run_id: str, after: int, upto: int) -> list[Row]:
        result = conn.execute(
            _PG_READ,
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
            for rows in self._chunks(run_id, 0, head):
                for r in rows:
                    # A row whose stored text hashes to its hash holds at its hash: only its
                    # seq and link are left to check (docs/ledger.md, "Checking a hash against
                    # the stored text"). Any other is parsed (ChainBrokenError if it cannot
                    # be) and its payload re-encoded, which says why it does not hold.
                    if sqlite and _stored_text_hashes(run_id, r):
                        hash_holds = _holds
                    else:
                        hash_holds = self._stored_row(run_id, r).hash_holds
                    if not chain.add(r[1], r[7], r[8], hash_holds):
                        return chain.report()
        except ChainBrokenError as exc:
            chain.unreadable(exc.seq, exc.reason)
            return chain.report()
        chain.end(partial(self._last_seq, run_id))
        return chain.report()

    def _last_seq(self, run_id: str) -> int | None:
        """The highest seq stored for the run, whatever its head says."""
        with self._errors(f"verifying run {run_id!r}"), self._engine.connect() as conn:
            last: int | None = conn.execute(
                select(func.max(events.c.seq)).where(events.c.run_id == run_id)
            ).scalar()
        return last

    def _stored_row(self, run_id: str, r: Row) -> StoredEvent:
        """A full row as the event it stores, its payload as stored (packed or not), parsed
        as :meth:`_stream` parses it; :class:`ChainBrokenError` where it cannot be."""
        try:
            if self._sqlite:
                payload, recorded_at = parse_canonical_json(r[4]), _parse_time(r[6])
            else:
                payload, recorded_at = parse_json(r[4]), _as_utc(r[6])
        except (ValueError, TypeError) as exc:
            raise ChainBrokenError(
                run_id, r[1], f"stored event cannot be parsed ({_first_line(exc)})"
            ) from None
        return stored_event(r[0], run_id, r[1], r[2], r[3], payload, r[5], recorded_at, r[7], r[8])

    # ------------------------------------------------------------------ checkpoints

    def add_checkpoint(
        self, run_id: str, seq: int, hash: str, public_key: str, signature: str
    ) -> Checkpoint:
        """Record a signed head. The store checks that the run has that event with that
        hash (it does not check the signature: that is the verifier's work)."""
        self._check_open()
        self._check_writable(f"recording a checkpoint of run {run_id!r}")
        moment = _utcnow()
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

    # ------------------------------------------------------------------ errors

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


def _nothing() -> None:
    pass


def _stored_text_hashes(run_id: str, r: Row) -> bool:
    """Whether a full SQLite row holds at its hash as its texts are stored (the payload and
    ``recorded_at`` as the store wrote and hashed them)."""
    return stored_text_hash_holds(
        r[8],
        run_id=run_id,
        seq=r[1],
        type=r[2],
        schema_version=r[3],
        payload_json=r[4],
        agent=r[5],
        recorded_at=r[6],
        prev_hash=r[7],
    )


def _holds() -> bool:
    """The hash check of a row already found to hold at its hash."""
    return True


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


def _payload_text(value: Any) -> str:
    return normalized_json_text(value, "payload")


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


def _is_seq_conflict(exc: sa_exc.IntegrityError | sqlite3.IntegrityError) -> bool:
    orig = exc.orig if isinstance(exc, sa_exc.IntegrityError) else exc
    if isinstance(orig, psycopg.errors.UniqueViolation):
        diag = orig.diag
        return diag.constraint_name == "uq_events_run_id_seq"
    text = str(orig)
    return "UNIQUE constraint failed: events.run_id, events.seq" in text
