"""Helpers shared by the CLI's commands: the ``--db`` option, opening the store, and turning
ledger errors into one red line on stderr and a non-zero exit.

Exit codes of every command (README): 0 ok; 1 a run failed, an audit found violations, a
check failed; 2 bad input (config, option, unknown run, unusable store); 3 the store is busy
(another process holds its write lock past the busy timeout, or wrote the run first); 4 the
store is full (disk or database); 130 interrupted (Ctrl-C, SIGTERM)."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from maai.ledger import ConcurrencyError, EventStore, LedgerError
from maai.ledger.errors import StoreBusyError, StoreFullError

STORE_ERROR_EXIT = 2
"""Exit status for a ledger error (unreachable store, bad URL, unknown run, ...)."""
EXIT_BUSY = 3
"""Exit status when another process holds the store (its write lock past the busy timeout,
or it appended to the run first)."""
EXIT_FULL = 4
"""Exit status when the store's disk (or the database) is full."""

BUSY_TIMEOUT_ENV = "MAAI_BUSY_TIMEOUT_S"
"""Seconds a SQLite writer waits for another process's write lock (default 30)."""
DEFAULT_BUSY_TIMEOUT_S = 30.0

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="PATH|URL",
        show_default=False,
        help=(
            "The ledger: a SQLite file path, sqlite:///PATH or postgresql://USER@HOST/DB."
            " Default: $MAAI_DB, else ~/.local/share/maai/ledger.db."
        ),
    ),
]


class CliConsole(Console):
    """A rich console whose text is never wrapped when it writes to a pipe or a file: a line
    wrapped at 80 columns breaks ``grep`` and the ``maai resume RUN_ID`` a user copies. On a
    terminal it wraps as configured. Tables still fit the console's width."""

    @property  # type: ignore[override]
    def soft_wrap(self) -> bool:
        return self._wrap_softly or not self.is_terminal

    @soft_wrap.setter
    def soft_wrap(self, value: bool) -> None:
        self._wrap_softly = value


# soft_wrap: an error stays one line however narrow the terminal; highlight off: no colours
# guessed from the text (numbers, paths) inside a message.
err_console = CliConsole(stderr=True, soft_wrap=True, highlight=False)


def fail(message: str, code: int = STORE_ERROR_EXIT) -> NoReturn:
    """Print ``error: message`` in red on stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/bold red] [red]{escape(message)}[/red]")
    raise typer.Exit(code)


def exit_code_for(exc: LedgerError, default: int = STORE_ERROR_EXIT) -> int:
    """The exit status a ledger error gives: busy or beaten by another writer 3, full 4,
    anything else ``default``."""
    if isinstance(exc, StoreFullError):
        return EXIT_FULL
    if isinstance(exc, StoreBusyError | ConcurrencyError):
        return EXIT_BUSY
    return default


@contextmanager
def exit_on_ledger_error(code: int = STORE_ERROR_EXIT) -> Iterator[None]:
    """Turn a :class:`~ledger.LedgerError` raised inside the block into :func:`fail` (with
    ``code``, or 3 for a busy store and 4 for a full one)."""
    try:
        yield
    except LedgerError as exc:
        fail(str(exc), exit_code_for(exc, code))


def busy_timeout_s(env: Mapping[str, str] = os.environ) -> float:
    """``$MAAI_BUSY_TIMEOUT_S`` (seconds, > 0), else 30; a bad value is one line, exit 2."""
    raw = env.get(BUSY_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_BUSY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        fail(f"{BUSY_TIMEOUT_ENV}={raw!r}: expected a number of seconds above 0, e.g. 30")
    return value


def open_store_or_exit(
    db: str | None, *, upgrade: bool | None = None, read_only: bool | None = None
) -> EventStore:
    """Open the ledger named by ``--db`` (or the default); on any ledger error print one red
    line naming the problem and exit (2; 3 when it is busy). ``upgrade`` as in
    :meth:`ledger.EventStore.open`. ``read_only``: ``None`` (the default) opens read-only
    exactly when an existing SQLite ledger or its folder cannot be written (a published
    ledger, read-only media), so that commands that only read work there; commands that
    write pass ``False``."""
    timeout = busy_timeout_s()
    if upgrade:
        read_only = False
    with exit_on_ledger_error():
        return EventStore.open(db, upgrade=upgrade, busy_timeout_s=timeout, read_only=read_only)
    raise AssertionError("unreachable")  # pragma: no cover -- fail() always raises
