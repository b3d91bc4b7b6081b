"""Where the store lives (``--db``, ``MAAI_DB``, the default file) and bad locations, at the
API level: each gives one ledger error naming the problem, and creates nothing."""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from maai.ledger import (
    BadStoreUrlError,
    EventStore,
    LedgerError,
    NotADatabaseError,
    SchemaBehindError,
    StoreUnreachableError,
    default_db_path,
    resolve_store_url,
)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("MAAI_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


# ---------------------------------------------------------------- resolution rules


def test_default_is_the_per_user_data_file(clean_env: Path) -> None:
    location = resolve_store_url(None)
    assert location.backend == "sqlite" and location.is_default
    assert location.path == clean_env / "xdg" / "maai" / "ledger.db"
    assert not location.path.parent.exists()
    with EventStore.open() as store:  # the default folder is the one that gets created
        assert store.display == str(location.path)
    assert location.path.exists()


def test_default_without_xdg_is_under_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MAAI_DB", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for xdg in (None, "", "relative/path"):
        if xdg is None:
            monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_DATA_HOME", xdg)
        assert default_db_path() == tmp_path / ".local" / "share" / "maai" / "ledger.db"


def test_maai_db_environment_variable(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAAI_DB", str(clean_env / "from-env.db"))
    location = resolve_store_url(None)
    assert location.path == clean_env / "from-env.db" and not location.is_default
    monkeypatch.setenv("MAAI_DB", "postgres://u@db.example:5433/x")
    assert resolve_store_url(None).backend == "postgresql"
    # An explicit location wins over the environment.
    assert resolve_store_url(str(clean_env / "given.db")).path == clean_env / "given.db"


def test_paths_and_sqlite_urls(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cases = {
        "plain.db": tmp_path / "plain.db",
        "sub/dir.db": tmp_path / "sub" / "dir.db",
        str(tmp_path / "abs.db"): tmp_path / "abs.db",
        "~/home.db": tmp_path / "home" / "home.db",
        "sqlite:///relative.db": tmp_path / "relative.db",
        f"sqlite:///{tmp_path}/absolute.db": tmp_path / "absolute.db",
        f"sqlite+pysqlite:///{tmp_path}/driver.db": tmp_path / "driver.db",
    }
    for given, path in cases.items():
        location = resolve_store_url(given)
        assert (location.backend, location.path) == ("sqlite", path), given


def test_postgres_urls_are_rewritten_for_psycopg() -> None:
    for given in (
        "postgresql://u:pw@h:5433/db",
        "postgres://u:pw@h:5433/db",
        "postgresql+psycopg://u:pw@h:5433/db",
    ):
        location = resolve_store_url(given)
        assert location.backend == "postgresql" and location.path is None
        assert location.url.drivername == "postgresql+psycopg"
        assert (location.url.host, location.url.port, location.url.database) == ("h", 5433, "db")
        assert location.url.query["connect_timeout"] == "5"
        assert location.url.password == "pw"
        assert "pw" not in location.display and "***" in location.display
    kept = resolve_store_url("postgresql://h/db?connect_timeout=1&options=-csearch_path%3Dx")
    assert kept.url.query["connect_timeout"] == "1"
    assert kept.url.query["options"] == "-csearch_path=x"


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("postgresql://u@h:notaport/db", "malformed"),
        ("postgresql:///db", "no host"),
        ("mysql://u@h/db", "unsupported database URL scheme 'mysql'"),
        ("http://example.com/x.db", "unsupported database URL scheme 'http'"),
        ("sqlite:relative.db", "malformed"),
        ("postgresql:u@h/db", "malformed"),
        ("sqlite://", "in-memory"),
        ("sqlite:///:memory:", "in-memory"),
        (":memory:", "in-memory"),
        ("sqlite:///x.db?mode=ro", "query parameters"),
        ("sqlite://host/x.db", "no host"),
    ],
)
def test_malformed_locations_are_refused(given: str, fragment: str) -> None:
    with pytest.raises(BadStoreUrlError, match=fragment) as caught:
        EventStore.open(given)
    assert "\n" not in str(caught.value)


def test_passwords_never_appear_in_errors() -> None:
    with pytest.raises(BadStoreUrlError) as caught:
        resolve_store_url("mysql://user:s3cret@h/db")
    assert "s3cret" not in str(caught.value)
    with pytest.raises(BadStoreUrlError) as caught:
        resolve_store_url("postgresql://user:s3cret@h:bad/db")
    assert "s3cret" not in str(caught.value)
    with pytest.raises(StoreUnreachableError) as unreachable:
        EventStore.open("postgresql://user:s3cret@127.0.0.1:1/db")
    assert "s3cret" not in str(unreachable.value)


# ---------------------------------------------------------------- bad SQLite locations


def test_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "ledger.db"
    with pytest.raises(StoreUnreachableError, match="does not exist") as caught:
        EventStore.open(str(path))
    assert str(path.parent) in str(caught.value)
    assert not (tmp_path / "no").exists()


def test_folder_given_instead_of_a_file(tmp_path: Path) -> None:
    with pytest.raises(NotADatabaseError, match="is a folder"):
        EventStore.open(str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreUnreachableError, match="not a folder"):
        EventStore.open(str(tmp_path / "file" / "ledger.db"))


@pytest.mark.parametrize(
    "content",
    [
        b"hello, this is a text file\n",
        b"SQLite format 2\x00" + b"\x00" * 100,
        bytes(range(256)) * 8,
        b"PK\x03\x04" + b"\x00" * 4096,
    ],
    ids=["text", "almost-sqlite", "binary", "zip"],
)
def test_a_file_that_is_not_a_database_is_left_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    before = path.stat()
    with pytest.raises(NotADatabaseError, match="not a SQLite database") as caught:
        EventStore.open(str(path))
    assert str(path) in str(caught.value)
    assert path.read_bytes() == content
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_a_sqlite_database_of_another_application_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('ada')")
    conn.commit()
    conn.close()
    content = path.read_bytes()
    with pytest.raises(NotADatabaseError, match="not a maai ledger.*contacts"):
        EventStore.open(str(path))
    assert path.read_bytes() == content


def test_an_empty_file_is_an_empty_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with EventStore.open(str(path)) as store:
        assert store.upgraded_from == "empty"


def test_not_upgrading_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with pytest.raises(SchemaBehindError, match="maai db upgrade --db"):
        EventStore.open(str(path), upgrade=False)
    assert list(tmp_path.iterdir()) == []


def test_unwritable_folder(unwritable_folder: Path) -> None:
    path = unwritable_folder / "ledger.db"
    with pytest.raises(StoreUnreachableError, match="not writable") as caught:
        EventStore.open(str(path))
    assert str(unwritable_folder) in str(caught.value)
    assert list(unwritable_folder.iterdir()) == []


def test_bad_synchronous_value(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        EventStore.open(str(tmp_path / "x.db"), synchronous="SOMETIMES")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- unreachable PostgreSQL


def test_refused_postgres_connection() -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnreachableError, match="cannot reach PostgreSQL") as caught:
        EventStore.open("postgresql://postgres@127.0.0.1:1/test")
    assert "127.0.0.1" in str(caught.value) and "\n" not in str(caught.value)
    assert time.monotonic() - started < 5


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A loopback port that accepts TCP connections and never says a word."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


def test_postgres_that_does_not_answer_times_out(silent_server: int) -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnreachableError, match="cannot reach PostgreSQL"):
        EventStore.open(f"postgresql://postgres@127.0.0.1:{silent_server}/test?connect_timeout=1")
    assert time.monotonic() - started < 10


@pytest.mark.postgres
def test_postgres_database_that_does_not_exist(postgres_server_url: str) -> None:
    from sqlalchemy.engine import make_url

    url = make_url(postgres_server_url).set(database="maai_no_such_database")
    with pytest.raises(StoreUnreachableError, match="maai_no_such_database"):
        EventStore.open(url.render_as_string(hide_password=False))


def test_every_error_is_a_ledger_error() -> None:
    for bad in ("mysql://x/y", "postgresql://postgres@127.0.0.1:1/x", "/no/such/dir/x.db"):
        with pytest.raises(LedgerError):
            EventStore.open(bad)
    assert os.path.exists("/no/such/dir") is False
