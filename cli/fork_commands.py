"""``maai fork``: a new run that is a stored run up to a point, then goes on under a changed
config (docs/forks.md)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from maai.cli.common import DbOption, exit_code_for, open_store_or_exit
from maai.cli.run_commands import (
    _execute,
    _interrupted,
    _sigint_deferred,
    _sigterm_as_interrupt,
    _stop_running,
    _trace,
)
from maai.cli.run_support import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, _fail, _signer, err, out
from maai.domain.forks import ForkError
from maai.ledger import EventStore, LedgerError
from maai.runtime.checkpoints import sign_head
from maai.runtime.forks import make_fork, plan_fork, scan_parent
from maai.runtime.runs import new_run_id, stored_config


def _labels(items: list[str]) -> dict[str, str]:
    labels = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise _fail(f"--label {item!r}: expected KEY=VALUE")
        labels[key.strip()] = value
    return labels


def fork(
    run_id: Annotated[str, typer.Argument(help="The run to fork (a unique prefix will do).")],
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            metavar="POINT",
            help="Where: a point the experiment names (`phase2`, `round:3`, `exchange:2`, "
            "`tick:5`), an address prefix (`p2/r3/alice`), or `seq:N` at a boundary "
            "(docs/forks.md).",
        ),
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set", metavar="PATH=VALUE", help="Change the config after the point (repeatable)."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="The child's own seed for its draws.")
    ] = None,
    same_draws: Annotated[
        bool,
        typer.Option("--same-draws", help="Continue the parent's random streams instead."),
    ] = False,
    label: Annotated[
        list[str] | None, typer.Option("--label", metavar="KEY=VALUE", help="Add a label.")
    ] = None,
    no_run: Annotated[bool, typer.Option("--no-run", help="Create the child only.")] = False,
    list_points: Annotated[
        bool, typer.Option("--list-points", help="Print the run's fork points and exit.")
    ] = False,
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the ids and summary.")] = False,
) -> None:
    """Fork RUN at a point: a child run whose history is RUN's up to the point, then a
    `run.forked` event, then its own; it runs like `maai run` (docs/forks.md)."""
    _sigterm_as_interrupt()
    store = open_store_or_exit(db, read_only=list_points)
    if list_points:
        _print_points(store, run_id)
        raise typer.Exit(EXIT_OK)
    if at is None:
        raise _fail("--at POINT is needed (--list-points names them)")
    try:
        plan = plan_fork(
            store,
            run_id,
            at,
            set_ or [],
            seed=seed,
            same_draws=same_draws,
            labels=_labels(label or []),
        )
    except ForkError as exc:
        raise _fail(str(exc), EXIT_USAGE) from None
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None
    for note in plan.notes:
        err.print(f"note: {escape(note)}", soft_wrap=True, highlight=False)
    signer = _signer()
    child = new_run_id()
    try:
        with _sigint_deferred():
            make_fork(store, plan, child)
            # Signed as it is created, like every run: a child never run is signed too.
            sign_head(store, child, signer)
    except LedgerError as exc:
        raise _fail(f"{exc}; no run was created", exit_code_for(exc)) from None
    except KeyboardInterrupt:
        _interrupted(None)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    out.print(
        f"run id: [bold]{child}[/bold] (fork of {plan.parent_run} at {escape(plan.point)}, "
        f"seq {plan.seq})",
        highlight=False,
    )
    if no_run:
        raise typer.Exit(EXIT_OK)
    experiment, config = stored_config(store, child)
    try:
        with _trace(child, config):
            code = _execute(store, child, experiment, config, quiet, signer)
    except KeyboardInterrupt:
        with _sigint_deferred():
            _stop_running(store, child)
        _interrupted(child)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    raise typer.Exit(code)


def _print_points(store: EventStore, run_id: str) -> None:
    try:
        full = store.get_run(run_id).run_id
        parent = scan_parent(store, full)
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None
    for point in parent.scan.points():
        out.print(f"{point.name}\tseq {point.seq}", highlight=False)
    boundaries = parent.scan.boundaries
    out.print(
        f"seq:N at {len(boundaries)} boundaries"
        + (f" ({', '.join(map(str, boundaries[:8]))}{', ...' if len(boundaries) > 8 else ''})")
        + f"; head {parent.head}",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    app.command()(fork)
