"""The ``maai`` command line. Each command group lives in its own module and registers here."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(
    name="maai",
    help="maai: an event-sourced experiment ledger for multi-agent LLM experiments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("maai")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"maai {_version()}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print maai's version and exit.",
        ),
    ] = False,
) -> None:
    """maai: an event-sourced experiment ledger for multi-agent LLM experiments."""


def _register() -> None:
    from maai.cli import (
        check_commands,
        export_commands,
        fork_commands,
        ledger_commands,
        report_commands,
        run_commands,
        study_commands,
        view_commands,
    )

    run_commands.register(app)
    check_commands.register(app)
    export_commands.register(app)
    report_commands.register(app)
    ledger_commands.register(app)
    study_commands.register(app)
    fork_commands.register(app)
    view_commands.register(app)


_register()


def main() -> None:
    app()
