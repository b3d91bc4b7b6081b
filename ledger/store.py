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
from contextlib import suppress
from typing import Any, Final

from sqlalchemy import Connection, create_engine, event, insert, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.pool import ConnectionPoolEntry, QueuePool

from maai.ledger import store_base
from maai.ledger.envelope import RunInfo, check_label, check_run_id
from maai.ledger.errors import (
    InvalidEventError,
    LedgerError,
    NotADatabaseError,
    RunExistsError,
    RunNotFoundError,
    SchemaBehindError,
    SchemaTooNewError,
    StoreFullError,
)
from maai.ledger.migrate import REVISIONS, SchemaStatus, schema_status, upgrade_to_head
from maai.ledger.reserve import STOPPED_STATUS, keep_reserve, release_reserve
from maai.ledger.schema import runs
from maai.ledger.sqlite_files import (
    check_sqlite_path,
    check_sqlite_readable,
    read_only_uri,
    remove_if_empty,
    writable,
)
from maai.ledger.store_appending import StoreAppending
from maai.ledger.store_base import DEFAULT_READ_CHUNK, _run_info
from maai.ledger.stored_json import normalize_json
from maai.ledger.urls import StoreLocation, resolve_store_url

SQLITE_SYNCHRONOUS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")


INITIAL_STATUS: Final = "created"


# The first revision whose tables each read needs: a ledger behind the code but at least at
# this revision can be read without an upgrade (a read-only open never upgrades). Checkpoints
# came with 0003; a ledger without them simply has none.
READABLE_FROM: Final = "0001"


class EventStore(StoreAppending):
    """Append-only, hash-chained event store on SQLite or PostgreSQL.

    Open with :meth:`open`; use as a context manager or call :meth:`close`.
    """

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

        # A pool of connections shared by threads: the URL without a path would get the
        # in-memory pool, which keeps five threads' connections and closes the others' under
        # them (a sixth concurrent reader crashed the viewer).
        engine = create_engine("sqlite+pysqlite://", creator=connect, poolclass=QueuePool)
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
        now = store_base.utcnow()
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
            if not self._sqlite or path is None or status != STOPPED_STATUS:
                # Only the write that leaves a stopped run resumable may spend the reserve:
                # spent on another (a run marked running as the disk fills), the room would
                # go to that run's next appends, and the runs stopped then would stay running.
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
                    # SQLAlchemy types it optional (a detached connection); a fresh one has it.
                    pooled.driver_connection.execute(  # type: ignore[union-attr]
                        "PRAGMA wal_checkpoint(RESTART)"
                    )
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
                .values(status=status, updated_at=store_base.utcnow())
            ).rowcount
            if changed != 1:
                raise RunNotFoundError(run_id)
            row = conn.execute(select(runs).where(runs.c.run_id == run_id)).one()
        return _run_info(row)
