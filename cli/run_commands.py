"""``maai run | resume | replay | verify | show``: running experiments from the terminal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated

import typer
from maai.cli.common import open_store_or_exit
from maai.cli.progress import ProgressPrinter
from maai.cli.summary import print_summary
from maai.domain.frohlich.config import ConfigError, FrohlichConfig
from maai.ledger import EventStore, LedgerError
from maai.runtime.engine import Engine, RunFailedError, load_state
from maai.runtime.runs import ensure_started, load_config, new_run_id, start_run, summarize
from maai.runtime.verify import verify_events
from rich.console import Console

# The model providers (the OpenAI Agents SDK: seconds to import) are imported only by the
# commands that may call a model: `maai --help`, `show`, `replay` and `verify` start fast.

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CONFLICT = 3
EXIT_INTERRUPTED = 130

err = Console(stderr=True)
out = Console()

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db", help="Ledger URL or SQLite path (default: $MAAI_DB or the user data dir)."
    ),
]


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _execute(store: EventStore, run_id: str, config: FrohlichConfig, quiet: bool) -> int:
    from maai.runtime.executors import LiveExecutor

    printer = ProgressPrinter(out, config, quiet=quiet)
    engine = Engine(store, run_id, LiveExecutor(config), on_event=printer.on_event)
    try:
        state = asyncio.run(engine.run())
    except KeyboardInterrupt:
        store.set_status(run_id, "interrupted")
        err.print(
            f"[yellow]interrupted.[/yellow] The run is saved; continue it with: "
            f"maai resume {run_id}"
        )
        return EXIT_INTERRUPTED
    except RunFailedError as exc:
        err.print(f"[red]run failed:[/red] {exc}", soft_wrap=True, highlight=False)
        err.print(f"The history is saved; when the cause is fixed: maai resume {run_id}")
        return EXIT_FAILED
    except LedgerError as exc:
        err.print(f"[red]stopped:[/red] {exc}", soft_wrap=True, highlight=False)
        return EXIT_CONFLICT
    print_summary(out, summarize(run_id, state, "completed"))
    return EXIT_OK


def _trace(run_id: str, config: FrohlichConfig) -> AbstractContextManager[str | None]:
    from maai.runtime import providers
    from maai.runtime.tracing import run_trace

    return run_trace(
        run_id,
        f"maai {config.name}",
        config.tracing,
        os.environ,
        third_party_key_envs=providers.third_party_key_envs(config),
    )


def _sigterm_as_interrupt() -> None:
    # A polite kill (SIGTERM) leaves the run as resumable as Ctrl-C does.
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def run(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="Experiment YAML file.")],
    db: DbOption = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Override the config's seed.")] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Only the run id and summary.")
    ] = False,
) -> None:
    """Run an experiment from a YAML config; prints the run id first, then live progress."""
    from maai.runtime import providers

    try:
        config = load_config(config_path, seed=seed)
        providers.check_credentials(config)
    except (ConfigError, providers.ProviderSetupError) as exc:
        raise _fail(str(exc)) from None
    store = open_store_or_exit(db)
    run_id = new_run_id()
    _sigterm_as_interrupt()
    # One SDK trace for the run; its id goes into the run's first event.
    with _trace(run_id, config) as trace_id:
        start_run(store, config, run_id=run_id, trace_id=trace_id)
        out.print(f"run id: [bold]{run_id}[/bold]", highlight=False)
        code = _execute(store, run_id, config, quiet)
    raise typer.Exit(code)


def _config_of(store: EventStore, run_id: str) -> tuple[str, FrohlichConfig]:
    try:
        info = store.get_run(run_id)
    except LedgerError as exc:
        raise _fail(str(exc)) from None
    return info.run_id, FrohlichConfig.model_validate(info.config)


def resume(
    run_id: Annotated[str, typer.Argument(help="The run to continue (a unique prefix will do).")],
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary.")] = False,
) -> None:
    """Continue an interrupted or failed run from its last event."""
    store = open_store_or_exit(db)
    run_id, config = _config_of(store, run_id)
    info = store.get_run(run_id)
    if info.status == "completed":
        err.print(f"run {run_id} is already completed; nothing to resume")
        state, _ = load_state(store, run_id)
        print_summary(out, summarize(run_id, state))
        raise typer.Exit(EXIT_OK)
    from maai.runtime import providers

    try:
        providers.check_credentials(config)
    except providers.ProviderSetupError as exc:
        raise _fail(str(exc)) from None
    try:
        ensure_started(store, run_id, config)
    except LedgerError as exc:
        raise _fail(str(exc), EXIT_CONFLICT) from None
    out.print(f"resuming run [bold]{run_id}[/bold]", highlight=False)
    _sigterm_as_interrupt()
    with _trace(run_id, config):
        code = _execute(store, run_id, config, quiet)
    raise typer.Exit(code)


def replay(
    run_id: Annotated[str, typer.Argument(help="The run to rebuild.")],
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Rebuild a run from its events alone (no model, no network) and print its summary."""
    store = open_store_or_exit(db)
    run_id, _ = _config_of(store, run_id)
    state, _ = load_state(store, run_id)
    summary = summarize(run_id, state, store.get_run(run_id).status)
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), indent=2, sort_keys=True))
    else:
        print_summary(out, summary)


def verify(
    run_id: Annotated[str, typer.Argument(help="The run to check.")],
    db: DbOption = None,
) -> None:
    """Check the hash chain and that the current code reproduces every recorded request.

    Every recorded request and derived event must be exactly what the current code would
    produce at that point; a difference names the event's seq and address."""
    store = open_store_or_exit(db)
    run_id, _ = _config_of(store, run_id)
    chain = store.verify_chain(run_id)
    if not chain.ok:
        raise _fail(f"hash chain broken at seq {chain.first_bad_seq}: {chain.reason}", EXIT_FAILED)
    report = verify_events(store.read(run_id))
    if not report.ok:
        for divergence in report.divergences:
            err.print(
                f"[red]divergence[/red] {divergence.describe()}", soft_wrap=True, highlight=False
            )
        raise typer.Exit(EXIT_FAILED)
    out.print(
        f"ok: {chain.events_checked} events chained; {report.requests} model requests and "
        f"{report.derived} derived events match the current code"
    )


def show(
    run_id: Annotated[str, typer.Argument(help="The run to show.")],
    db: DbOption = None,
) -> None:
    """Status, phase, round, outcome and payoffs of one run."""
    store = open_store_or_exit(db)
    run_id, _ = _config_of(store, run_id)
    state, head = load_state(store, run_id)
    info = store.get_run(run_id)
    out.print(
        f"run [bold]{run_id}[/bold]  created {info.created_at:%Y-%m-%d %H:%M:%S}  events {head}"
    )
    print_summary(out, summarize(run_id, state, info.status))


def register(app: typer.Typer) -> None:
    for command in (run, resume, replay, verify, show):
        app.command()(command)
