"""Fixtures shared by every test package.

PostgreSQL: tests that need it request ``postgres_url`` (a fresh, empty schema of its own,
dropped afterwards). The server comes from ``MAAI_TEST_POSTGRES_URL`` (CI sets it to
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); when it is unset or the server does not
answer, those tests are skipped with the reason, never failed.
"""

from __future__ import annotations

import os

# pytest-xdist starts its workers with COLUMNS=80 and LINES=24 in their environment, and rich
# consoles made when the CLI's modules are imported keep COLUMNS for good: every table and
# wrapped line of the session would be 80 wide, where a plain run leaves the width to each
# test (CliRunner's env=). Removed before anything imports the CLI.
if "PYTEST_XDIST_WORKER" in os.environ:
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from maai.runtime import signing

POSTGRES_ENV = "MAAI_TEST_POSTGRES_URL"


@pytest.fixture(scope="session", autouse=True)
def signing_key(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Runs sign their heads with a key of the test session, never the user's own (the
    processes the end-to-end tests start inherit it)."""
    path = str(tmp_path_factory.mktemp("signing") / "signing_key.pem")
    # Created here: a file named by MAAI_SIGNING_KEY must exist (never created on first use).
    signing.load_signer(Path(path))
    before = os.environ.get("MAAI_SIGNING_KEY")
    os.environ["MAAI_SIGNING_KEY"] = path
    yield path
    if before is None:
        os.environ.pop("MAAI_SIGNING_KEY", None)
    else:
        os.environ["MAAI_SIGNING_KEY"] = before


def libpq_dsn(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as a libpq connection string for psycopg itself."""
    parsed = make_url(url)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The test server's URL; skips (once per session) when there is none."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if not url:
        pytest.skip(f"{POSTGRES_ENV} is not set; PostgreSQL tests are skipped")
    try:
        with psycopg.connect(libpq_dsn(url), connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except (psycopg.Error, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        pytest.skip(f"PostgreSQL from {POSTGRES_ENV} does not answer: {reason}")
    return url


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A URL whose connections use a new, empty schema (``search_path``), dropped after."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    dsn = libpq_dsn(postgres_server_url)
    with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    url = make_url(postgres_server_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
