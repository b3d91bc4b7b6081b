"""Where the store lives: turning ``--db`` / ``MAAI_DB`` / nothing into a database URL.

Rules, in order:

1. ``None`` -> the environment variable ``MAAI_DB`` if set and non-empty -> the default SQLite
   file ``$XDG_DATA_HOME/maai/ledger.db`` (``~/.local/share/maai/ledger.db`` when
   ``XDG_DATA_HOME`` is unset or relative). Only for the default is the folder created.
2. A string with ``://`` is a URL: ``sqlite:///relative.db``, ``sqlite:////absolute.db``,
   ``postgresql+psycopg://...``; ``postgresql://`` and ``postgres://`` mean the same (psycopg 3).
   Any other scheme, a URL that does not parse, an in-memory SQLite URL or query parameters on
   a SQLite URL are refused with :class:`~ledger.errors.BadStoreUrlError`.
3. Anything else is a SQLite file path (``~`` expanded); ``sqlite:x`` and the like, which look
   like a URL missing its slashes, are refused rather than taken as a file named ``sqlite:x``.

PostgreSQL URLs get ``connect_timeout=5`` and ``application_name=maai`` unless they set
their own.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from maai.ledger.errors import BadStoreUrlError

ENV_VAR = "MAAI_DB"
DEFAULT_CONNECT_TIMEOUT_S = 5

_PG_DRIVERS = {"postgresql", "postgres", "postgresql+psycopg"}
_SQLITE_DRIVERS = {"sqlite", "sqlite+pysqlite"}
_LOOKS_LIKE_URL = re.compile(r"^(sqlite|postgres|postgresql)(\+[a-z0-9]+)?:", re.IGNORECASE)


@dataclass(frozen=True)
class StoreLocation:
    """A resolved store location."""

    backend: Literal["sqlite", "postgresql"]
    url: URL
    """The SQLAlchemy URL to connect with (password included)."""
    path: Path | None
    """The SQLite file, absolute; ``None`` for PostgreSQL."""
    is_default: bool
    """True when nothing was given and the per-user default file is used."""
    given: URL | None = None
    """PostgreSQL: the URL as given (before the defaults were added), for messages."""

    @property
    def display(self) -> str:
        """How to name this store to a user: the file path, or the URL as given without its
        password. This is also what ``--db`` accepts."""
        if self.path is not None:
            return str(self.path)
        return (self.given or self.url).render_as_string(hide_password=True)


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/maai/ledger.db``, else ``~/.local/share/maai/ledger.db``."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "maai" / "ledger.db"


def _sqlite_location(path: Path, *, is_default: bool) -> StoreLocation:
    path = path.expanduser().absolute()
    url = URL.create("sqlite+pysqlite", database=str(path))
    return StoreLocation("sqlite", url, path, is_default)


def resolve_store_url(db: str | None = None) -> StoreLocation:
    """Resolve ``db`` (``--db``, ``url=``) following the rules in this module's docstring."""
    if db is None:
        db = os.environ.get(ENV_VAR) or None
        if db is None:
            return _sqlite_location(default_db_path(), is_default=True)
    if not isinstance(db, str) or not db.strip():
        raise BadStoreUrlError("empty store location: give a file path or a database URL")
    db = db.strip()
    if "://" not in db:
        if _LOOKS_LIKE_URL.match(db) and not os.path.exists(db):
            raise BadStoreUrlError(
                f"malformed database URL {db!r}: expected sqlite:///PATH or"
                " postgresql://USER@HOST:PORT/DATABASE"
            )
        if db == ":memory:":
            raise _memory_refused()
        return _sqlite_location(Path(db), is_default=False)
    try:
        url = make_url(db)
        url.port  # noqa: B018  -- parsing the port is lazy in some versions; force it here
    except (ArgumentError, ValueError) as exc:
        raise BadStoreUrlError(f"malformed database URL {_redact(db)!r}: {exc}") from None
    driver = url.drivername.lower()
    if driver in _SQLITE_DRIVERS:
        if url.query:
            raise BadStoreUrlError(
                f"query parameters are not supported in SQLite URLs: {_redact(db)!r}"
            )
        if not url.database or url.database == ":memory:" or url.database.startswith("file:"):
            raise _memory_refused()
        if url.host or url.username or url.port:
            raise BadStoreUrlError(
                f"malformed SQLite URL {db!r}: a SQLite URL has no host; write sqlite:///PATH"
            )
        return _sqlite_location(Path(url.database), is_default=False)
    if driver in _PG_DRIVERS:
        if not url.host and "host" not in url.query:
            raise BadStoreUrlError(
                f"malformed PostgreSQL URL {_redact(db)!r}: no host; write"
                " postgresql://USER@HOST:PORT/DATABASE"
            )
        query = dict(url.query)
        query.setdefault("connect_timeout", str(DEFAULT_CONNECT_TIMEOUT_S))
        query.setdefault("application_name", "maai")
        full = url.set(drivername="postgresql+psycopg", query=query)
        return StoreLocation("postgresql", full, None, False, given=url)
    raise BadStoreUrlError(
        f"unsupported database URL scheme {url.drivername!r} in {_redact(db)!r}: use a file"
        " path, sqlite:///PATH or postgresql://USER@HOST:PORT/DATABASE"
    )


def _memory_refused() -> BadStoreUrlError:
    return BadStoreUrlError(
        "in-memory SQLite is not supported (a ledger must outlive the process); give a file"
        " path, e.g. a temporary file in tests"
    )


def _redact(text: str) -> str:
    """Hide a password in a URL that may not parse."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", text)
