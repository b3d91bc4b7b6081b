"""Helpers shared by the CLI's commands: the ``--db`` option, opening the store, and turning
ledger errors into one red line on stderr and a non-zero exit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from maai.ledger import EventStore, LedgerError

STORE_ERROR_EXIT = 2
"""Exit status for a ledger error (unreachable store, bad URL, unknown run, ...)."""

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

# soft_wrap: an error stays one line however narrow the terminal; highlight off: no colours
# guessed from the text (numbers, paths) inside a message.
err_console = Console(stderr=True, soft_wrap=True, highlight=False)


def fail(message: str, code: int = STORE_ERROR_EXIT) -> NoReturn:
    """Print ``error: message`` in red on stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/bold red] [red]{escape(message)}[/red]")
    raise typer.Exit(code)


@contextmanager
def exit_on_ledger_error(code: int = STORE_ERROR_EXIT) -> Iterator[None]:
    """Turn a :class:`~ledger.LedgerError` raised inside the block into :func:`fail`."""
    try:
        yield
    except LedgerError as exc:
        fail(str(exc), code)


def open_store_or_exit(db: str | None, *, upgrade: bool | None = None) -> EventStore:
    """Open the ledger named by ``--db`` (or the default); on any ledger error print one red
    line naming the problem and exit with status 2. ``upgrade`` as in
    :meth:`ledger.EventStore.open`."""
    with exit_on_ledger_error():
        return EventStore.open(db, upgrade=upgrade)
    raise AssertionError("unreachable")  # pragma: no cover -- fail() always raises
