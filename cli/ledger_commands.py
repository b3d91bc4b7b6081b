"""Ledger commands: ``maai db upgrade`` and ``maai runs``."""

from __future__ import annotations

from datetime import datetime

import typer
from rich.console import Console
from rich.table import Table

from maai.cli.common import DbOption, err_console, exit_on_ledger_error, open_store_or_exit

db_app = typer.Typer(
    name="db",
    help="Manage the ledger database (schema upgrades).",
    no_args_is_help=True,
)


@db_app.command("upgrade")
def db_upgrade(db: DbOption = None) -> None:
    """Create the ledger schema, or bring it up to this version of maai.

    Needed for PostgreSQL, which is never upgraded implicitly; SQLite files are upgraded
    when opened, and this creates one ahead of time.
    """
    with open_store_or_exit(db, upgrade=True) as store:
        if store.upgraded_from is None:
            typer.echo(f"{store.display}: schema is up to date (revision {store.schema_revision})")
        else:
            typer.echo(
                f"{store.display}: upgraded schema from {store.upgraded_from}"
                f" to revision {store.schema_revision}"
            )


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def runs_command(db: DbOption = None) -> None:
    """List the runs in the ledger, oldest first (times in UTC)."""
    with open_store_or_exit(db) as store, exit_on_ledger_error():
        runs = store.list_runs()
        where = store.display
    if not runs:
        err_console.print(f"no runs in {where}")
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("run id", no_wrap=True, overflow="fold")
    table.add_column("kind")
    table.add_column("status")
    table.add_column("head seq", justify="right")
    table.add_column("created (UTC)", no_wrap=True)
    table.add_column("updated (UTC)", no_wrap=True)
    for run in runs:
        table.add_row(
            run.run_id,
            run.kind,
            run.status,
            str(run.head_seq),
            _when(run.created_at),
            _when(run.updated_at),
        )
    Console(highlight=False).print(table)


def register(app: typer.Typer) -> None:
    """Add ``db`` (with ``upgrade``) and ``runs`` to the ``maai`` app."""
    app.add_typer(db_app, name="db")
    app.command("runs")(runs_command)
