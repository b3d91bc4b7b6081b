"""``maai run | resume``: running experiments from the terminal (``cli.check_commands`` reads
and checks the runs stored)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Annotated, NoReturn

import typer
from rich.markup import escape
from rich.text import Text

from maai.cli.common import DbOption, exit_code_for, open_store_or_exit
from maai.cli.run_support import (
    EXIT_CONFLICT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    _config_of,
    _cost,
    _fail,
    _fold,
    _require_trusted,
    _signer,
    err,
    out,
)
from maai.cli.status_line import StatusLine
from maai.cli.summary import print_summary, print_usage
from maai.domain.config import ConfigError, ExperimentConfig
from maai.domain.events import Event
from maai.domain.experiment import Experiment
from maai.ledger import EventStore, LedgerError
from maai.ledger.errors import StoreBusyError, StoreFullError
from maai.runtime import config_files
from maai.runtime.checkpoints import sign_head
from maai.runtime.engine import Engine, RunFailedError, run_engine
from maai.runtime.live_status import LiveStatus, WatchedExecutor, showing
from maai.runtime.runs import load_experiment_config, new_run_id, start_run
from maai.runtime.signing import Signer
from maai.runtime.trust import UntrustedRunError, require_trusted

# The model providers (the OpenAI Agents SDK: seconds to import) are imported only by the
# commands that may call a model: `maai --help`, `show`, `replay` and `verify` start fast.


def _execute(
    store: EventStore,
    run_id: str,
    experiment: Experiment,
    config: ExperimentConfig,
    quiet: bool,
    signer: Signer,
) -> int:
    from maai.runtime.executors import LiveExecutor

    # On a terminal, a live line under the progress names the step, the calls in flight and
    # how long they have waited (a slow model leaves the screen still otherwise).
    status = LiveStatus()
    status_line = StatusLine(out, status.text, enabled=not quiet)
    on_event = None
    if not quiet:
        progress = experiment.views().progress(config)

        def on_event(event: Event, state: object) -> None:
            for line in progress.lines(event, state):
                out.print(line, highlight=False, soft_wrap=True)
                status.set_step(Text.from_markup(line).plain)

    executor = LiveExecutor(config, experiment=experiment)
    engine = Engine(
        store,
        run_id,
        WatchedExecutor(executor, status) if status_line.shown else executor,
        experiment=experiment,
        on_event=on_event,
        signer=signer,
    )
    show_warnings = True
    try:
        with status_line, showing(status) if status_line.shown else nullcontext():
            state = run_engine(engine)
    except KeyboardInterrupt:
        with _sigint_deferred():
            _stop_running(store, run_id)
        _interrupted(run_id)
        return EXIT_INTERRUPTED
    except RunFailedError as exc:
        if quiet:  # else the progress lines have just said it
            err.print(f"[red]run failed:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        err.print(f"The history is saved; when the cause is fixed: maai resume {run_id}")
        return EXIT_FAILED
    except (StoreBusyError, StoreFullError) as exc:
        # The store cannot be written now: what was stored is one unbroken chain, and the
        # run is left resumable. The head could not be signed either: no warning about it.
        show_warnings = False
        _stop_running(store, run_id)
        when = (
            "there is space again"
            if isinstance(exc, StoreFullError)
            else "the other process lets go of the store"
        )
        err.print(
            f"[red]stopped:[/red] {escape(str(exc))}. The run is saved; once {when}, continue"
            f" it with: maai resume {run_id}",
            soft_wrap=True,
            highlight=False,
        )
        return exit_code_for(exc)
    except UntrustedRunError as exc:
        # Checked before anything was sent or signed; the run is left exactly as it was.
        show_warnings = False
        err.print(f"[red]refused:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        return EXIT_FAILED
    except LedgerError as exc:
        # Another writer won the run (ConcurrencyError): it owns the run and its status now.
        err.print(f"[red]stopped:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False)
        return exit_code_for(exc, EXIT_CONFLICT)
    finally:
        if show_warnings:
            for warning in engine.warnings:
                err.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)
    print_summary(
        out,
        experiment.summarize(run_id, state, "completed"),
        _cost(store, run_id, config),
    )
    print_usage(out, store, run_id, config.prices)
    return EXIT_OK


def _stop_running(store: EventStore, run_id: str) -> None:
    """A run this process stops is left ``interrupted`` (resumable), never ``running``; its
    status is left alone when this process never got to set it. Best effort: a store that
    cannot take the write keeps whatever status it holds (any but completed resumes)."""
    try:
        if store.get_run(run_id).status in ("running", "created"):
            store.set_status(run_id, "interrupted")
    except LedgerError:
        pass


def _interrupted(run_id: str | None) -> None:
    if run_id is None:
        err.print(
            "[yellow]interrupted[/yellow] before the run started; nothing was recorded.",
            soft_wrap=True,
            highlight=False,
        )
        return
    err.print(
        f"[yellow]interrupted.[/yellow] The run is saved; continue it with: maai resume {run_id}",
        soft_wrap=True,
        highlight=False,
    )


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold Ctrl-C (and SIGTERM, which is treated like it) back while the block runs, then
    raise the KeyboardInterrupt it would have raised: a run is created whole (the run and
    its first event) or not at all, and a stopping run's status is written."""
    caught: list[int] = []

    def hold(signum: int, frame: object) -> None:
        caught.append(signum)

    try:
        previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: signals go to the main thread anyway
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught:
        raise KeyboardInterrupt


def _trace(run_id: str, config: ExperimentConfig) -> AbstractContextManager[str | None]:
    from maai.runtime import providers
    from maai.runtime.tracing import openai_key_envs, run_trace, trace_key_env

    # Exported to OpenAI only for a run that calls OpenAI's API, or when asked for
    # (MAAI_TRACING=openai): docs/providers.md#tracing.
    return run_trace(
        run_id,
        f"maai {config.name}",
        config.tracing,
        os.environ,
        uses_openai=bool(openai_key_envs(config)),
        key_env=trace_key_env(config),
        third_party_key_envs=providers.third_party_key_envs(config),
    )


def _sigterm_as_interrupt() -> None:
    # A polite kill (SIGTERM) leaves the run as resumable as Ctrl-C does.
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def run(
    config_path: Annotated[
        str,
        typer.Argument(
            metavar="CONFIG",
            help="An experiment YAML file, or the name of a packaged example (`default`, "
            "`openai`, ...) or of an experiment (`frohlich`: its default example). "
            "`maai init` copies the examples out.",
        ),
    ],
    db: DbOption = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Override the config's seed.")] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Only the run id and summary.")
    ] = False,
) -> None:
    """Run an experiment from a YAML config; prints the run id first, then live progress.

    The config's `experiment:` key names the experiment (docs/experiments.md)."""
    # Ctrl-C (or SIGTERM) from the first moment: one line and exit 130, with the run, if it
    # was created, left resumable and never "running".
    _sigterm_as_interrupt()
    run_id: str | None = None
    store: EventStore | None = None
    try:
        from maai.runtime import providers
        from maai.runtime.parameters import check_parameters
        from maai.runtime.preflight import preflight

        try:
            experiment, config = load_experiment_config(
                config_files.resolve(config_path), seed=seed
            )
            providers.check_credentials(config)
            check_parameters(config)
            preflight(config)
        except (ConfigError, providers.ProviderSetupError) as exc:
            raise _fail(str(exc)) from None
        from maai.runtime.windows import window_warnings

        for warning in window_warnings(config):
            err.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)
        signer = _signer()
        store = open_store_or_exit(db, read_only=False)
        new_id = new_run_id()
        # One SDK trace for the run; its id goes into the run's first event.
        with _trace(new_id, config) as trace_id:
            try:
                with _sigint_deferred():
                    start_run(store, config, run_id=new_id, trace_id=trace_id, signer=signer)
                    run_id = new_id
            except LedgerError as exc:
                _not_started(store, new_id, exc)
            out.print(f"run id: [bold]{new_id}[/bold]", highlight=False)
            code = _execute(store, new_id, experiment, config, quiet, signer)
    except KeyboardInterrupt:
        if store is not None and run_id is not None:
            with _sigint_deferred():
                _stop_running(store, run_id)
        _interrupted(run_id)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    raise typer.Exit(code)


def _not_started(store: EventStore, run_id: str, exc: LedgerError) -> NoReturn:
    """``start_run`` failed (the store is busy, full, ...): one line. A run created without
    its first event holds nothing but its unhashed row, which is never trusted for a config:
    it cannot be resumed, and nothing of it is lost."""
    try:
        created = store.get_run(run_id).run_id == run_id
    except LedgerError:
        created = False
    if created:
        _stop_running(store, run_id)
        message = f"{exc}. The run {run_id} was created without its first event (nothing "
        raise _fail(f"{message}was recorded); run it again", exit_code_for(exc, EXIT_USAGE))
    raise _fail(f"{exc}; no run was created", exit_code_for(exc, EXIT_USAGE))


def resume(
    run_id: Annotated[str, typer.Argument(help="The run to continue (a unique prefix will do).")],
    db: DbOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary.")] = False,
) -> None:
    """Continue an interrupted or failed run from its last event."""
    _sigterm_as_interrupt()
    full_id: str | None = None
    store: EventStore | None = None
    try:
        store = open_store_or_exit(db, read_only=False)
        full_id, experiment, config = _config_of(store, run_id)
        try:
            info = store.get_run(full_id)
        except LedgerError as exc:
            raise _fail(str(exc), exit_code_for(exc)) from None
        signer = _signer()
        if info.status == "completed":
            err.print(f"run {full_id} is already completed; nothing to resume")
            state, _ = _fold(store, full_id, experiment)
            # Its head is signed already: sign_head adds nothing, and would sign only a
            # history whose chain and earlier signatures hold.
            try:
                _require_trusted(store, full_id)
                sign_head(store, full_id, signer)
            except LedgerError as exc:
                raise _fail(str(exc), exit_code_for(exc)) from None
            print_summary(out, experiment.summarize(full_id, state), _cost(store, full_id, config))
            print_usage(out, store, full_id, config.prices)
            raise typer.Exit(EXIT_OK)
        # Checked before the trace opens too (it may export to OpenAI); the engine checks
        # again, right before its first request.
        try:
            require_trusted(store, full_id)
        except UntrustedRunError as exc:
            raise _fail(f"refused: {exc}", EXIT_FAILED) from None
        except LedgerError as exc:
            raise _fail(str(exc), exit_code_for(exc)) from None
        from maai.runtime import providers
        from maai.runtime.parameters import check_parameters
        from maai.runtime.preflight import preflight

        try:
            providers.check_credentials(config)
            check_parameters(config)
            preflight(config)
        except providers.ProviderSetupError as exc:
            raise _fail(str(exc)) from None
        out.print(f"resuming run [bold]{full_id}[/bold]", highlight=False)
        with _trace(full_id, config):
            code = _execute(store, full_id, experiment, config, quiet, signer)
    except KeyboardInterrupt:
        if store is not None and full_id is not None:
            with _sigint_deferred():
                _stop_running(store, full_id)
        _interrupted(full_id)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    for command in (run, resume):
        app.command()(command)
