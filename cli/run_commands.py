"""``maai run | resume | replay | verify | show``: running experiments from the terminal."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.markup import escape
from rich.text import Text

from maai.cli.common import (
    EXIT_BUSY,
    EXIT_FULL,
    CliConsole,
    DbOption,
    exit_code_for,
    open_store_or_exit,
)
from maai.cli.status_line import StatusLine
from maai.cli.summary import print_summary, print_usage
from maai.domain.calls import ModelRequest
from maai.domain.config import ConfigError, ExperimentConfig
from maai.domain.experiment import Experiment
from maai.ledger import ChainReport, EventStore, LedgerError, StoredEvent
from maai.ledger.errors import StoreBusyError, StoreFullError
from maai.projections.build import modified_build
from maai.runtime import config_files
from maai.runtime.checkpoints import (
    ReceiptError,
    check_checkpoints,
    check_receipt,
    sign_head,
)
from maai.runtime.checkpoints import receipt as make_receipt
from maai.runtime.engine import (
    FOLD_KEEPS_PACKED,
    Engine,
    RunFailedError,
    UnreadableHistoryError,
    load_state,
    run_engine,
)
from maai.runtime.forks import check_parent_receipt, check_prefix, forked_of, lineage
from maai.runtime.live_status import LiveStatus, WatchedExecutor, showing
from maai.runtime.runs import (
    experiment_of,
    first_claim,
    load_config,
    new_run_id,
    start_run,
    started_event,
    stored_config,
)
from maai.runtime.signing import KEY_ENV, Signer, SigningKeyError, fingerprint, load_signer
from maai.runtime.trust import UntrustedRunError, require_trusted
from maai.runtime.verify import ChainCheck, check_run_row, reuse_large_blocks, verify_events

# The model providers (the OpenAI Agents SDK: seconds to import) are imported only by the
# commands that may call a model: `maai --help`, `show`, `replay` and `verify` start fast.

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_CONFLICT = EXIT_BUSY  # 3: another process writes the run, or holds the store's lock
EXIT_STORE_FULL = EXIT_FULL  # 4: the store's disk (or database) is full
EXIT_INTERRUPTED = 130

err = CliConsole(stderr=True)
out = CliConsole()


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _signer() -> Signer:
    try:
        return load_signer()
    except SigningKeyError as exc:
        hint = "" if KEY_ENV in str(exc) else f" (set {KEY_ENV} to use another file)"
        raise _fail(f"{exc}{hint}") from None


def _cost(store: EventStore, run_id: str, config: ExperimentConfig) -> float | None:
    """The run's cost at its config's prices (``None`` without prices)."""
    from maai.runtime.study import run_cost

    return run_cost(store, run_id, config.prices)


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

        def on_event(event: object, state: object) -> None:
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
            config = load_config(config_files.resolve(config_path), seed=seed)
            experiment = experiment_of(config)
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


NoCheckOption = Annotated[
    bool,
    typer.Option(
        "--no-check",
        help="Skip the hash-chain check (forensics: read a history known to be broken).",
    ),
]


def _check_chain(store: EventStore, run_id: str) -> ChainReport:
    """Refuse a run whose hash chain is broken, naming the first bad seq (exit 1); else the
    chain's report."""
    try:
        full = store.get_run(run_id).run_id
        chain = store.verify_chain(full)
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None
    if not chain.ok:
        raise _chain_broken(chain)
    return chain


def _chain_broken(chain: ChainReport) -> typer.Exit:
    return _fail(
        f"run {chain.run_id}: hash chain broken at seq {chain.first_bad_seq}: {chain.reason} "
        "(maai verify tells more; --no-check reads it anyway)",
        EXIT_FAILED,
    )


def _ends(store: EventStore, run_id: str) -> list[StoredEvent]:
    """A run's first and last events: all that ``check_run_row`` reads of them (reading
    every event again cost as much as checking the chain)."""
    head = store.head(run_id)
    if head == 0:
        return []
    first = next(iter(store.read(run_id, keep_packed=FOLD_KEEPS_PACKED)))
    if head == 1:
        return [first]
    last = store.read(run_id, from_seq=head - 1, keep_packed=FOLD_KEEPS_PACKED)
    return [first, next(iter(last))]


def _recorded_request(store: EventStore, run_id: str, seq: int) -> ModelRequest:
    stored = next(iter(store.read(run_id, from_seq=seq - 1)))
    return ModelRequest.model_validate(stored.payload["request"])


def _fold(store: EventStore, run_id: str, experiment: Experiment) -> tuple[Any, int]:
    try:
        return load_state(store, run_id, experiment)
    except (UnreadableHistoryError, LedgerError) as exc:
        raise _fail(str(exc), EXIT_FAILED) from None


def _config_of(store: EventStore, run_id: str) -> tuple[str, Experiment, ExperimentConfig]:
    try:
        info = store.get_run(run_id)
        experiment, config = stored_config(store, info.run_id)
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None
    except ConfigError as exc:
        raise _fail(f"run {run_id}: {exc}") from None
    return info.run_id, experiment, config


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
            print_summary(
                out, experiment.summarize(full_id, state), _cost(store, full_id, config)
            )
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


def replay(
    run_id: Annotated[str, typer.Argument(help="The run to rebuild.")],
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    no_check: NoCheckOption = False,
) -> None:
    """Rebuild a run from its events alone (no model, no network) and print its summary.

    The hash chain is checked first: a broken history is refused."""
    store = open_store_or_exit(db)
    if not no_check:
        _check_chain(store, run_id)
    run_id, experiment, config = _config_of(store, run_id)
    state, _ = _fold(store, run_id, experiment)
    summary = experiment.summarize(run_id, state, store.get_run(run_id).status)
    if as_json:
        typer.echo(json.dumps(summary.data, indent=2, sort_keys=True))
    else:
        print_summary(out, summary, _cost(store, run_id, config))
        print_usage(out, store, run_id, config.prices)


def verify(
    run_id: Annotated[str, typer.Argument(help="The run to check.")],
    db: DbOption = None,
    receipt_file: Annotated[
        Path | None,
        typer.Option(
            "--receipt",
            metavar="FILE",
            help="A receipt from `maai receipt`: prove the ledger still holds its history.",
        ),
    ] = None,
) -> None:
    """Check the hash chain, the signed checkpoints, the runs row against the events, and
    that the current code reproduces every recorded request and derived event.

    A difference names the event's seq (and the call's address); exit 1 on any."""
    store = open_store_or_exit(db)
    try:
        run_id = store.get_run(run_id).run_id
        head = store.head(run_id)
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None
    try:
        experiment, _ = stored_config(store, run_id)
    except Exception:
        _check_chain(store, run_id)  # a broken chain is reported first, as it always was
        _config_of(store, run_id)  # else the config's own error, as before
        raise
    # One pass over the events checks the chain and the protocol (the chain was checked in a
    # pass of its own before: reading a long run twice); the protocol sees only the events
    # the chain vouches for, and a broken chain is all that is reported, as before. Requests
    # are read as their address and hash (their texts are not rebuilt), and fetched whole
    # only to describe one that differs.
    reuse_large_blocks()
    chained = ChainCheck(
        run_id, head, store.read(run_id, keep_packed=FOLD_KEEPS_PACKED, keep_text=True)
    )
    try:
        report = verify_events(
            chained, experiment, recorded_request=partial(_recorded_request, store, run_id)
        )
    except Exception:
        if not chained.report().ok:
            raise _chain_broken(chained.report()) from None
        raise
    try:
        chain = chained.report()
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None
    if not chain.ok:
        raise _chain_broken(chain)
    problems: list[str] = []
    if receipt_file is not None:
        try:
            data = json.loads(receipt_file.read_text(encoding="utf-8"))
            # A fork is also held to its parent's receipt, over its inherited prefix.
            found = check_parent_receipt(store, run_id, data)
            found = check_receipt(store, run_id, data) if found is None else found
            problems += [f"receipt: {p}" for p in found]
        except (OSError, ValueError) as exc:
            raise _fail(f"{receipt_file}: {exc}") from None
    problems += [f"fork: {p}" for p in check_prefix(store, run_id)]
    local = _local_key()
    signed = check_checkpoints(store, run_id, local)
    problems += [f"checkpoint: {p}" for p in signed.problems]
    fork = forked_of(store, run_id)
    report.divergences[:0] = check_run_row(
        store.get_run(run_id), _ends(store, run_id), fork.config if fork else None
    )
    for problem in problems:
        err.print(f"[red]broken[/red] {escape(problem)}", soft_wrap=True, highlight=False)
    for divergence in report.divergences:
        err.print(
            f"[red]divergence[/red] {escape(divergence.describe())}",
            soft_wrap=True,
            highlight=False,
        )
    for note in signed.notes:
        err.print(f"note: {escape(note)}", soft_wrap=True, highlight=False)
    _name_modified_build(store, run_id, err)
    if problems or not report.ok:
        raise typer.Exit(EXIT_FAILED)
    keys = ", ".join(
        f"{fp}{' (this machine)' if local and fp == fingerprint(local) else ''}"
        for fp in signed.keys
    )
    out.print(
        f"ok: {chain.events_checked} events chained; {report.requests} model requests and "
        f"{report.derived} derived events match the current code; {signed.checked} signed "
        f"checkpoint(s){f' by key {keys}' if keys else ''}"
        + ("; the receipt's history is intact" if receipt_file is not None else ""),
        highlight=False,
    )


def _require_trusted(store: EventStore, run_id: str) -> None:
    """Refuse (exit 1) to sign a head whose chain or earlier signatures do not hold, or
    whose signing evidence is missing (runtime.trust)."""
    try:
        require_trusted(store, run_id, allow_unsigned_interrupted=False)
    except UntrustedRunError as exc:
        raise _fail(f"{exc} (maai verify tells more)", EXIT_FAILED) from None
    except LedgerError as exc:
        raise _fail(str(exc), exit_code_for(exc)) from None


def _name_modified_build(store: EventStore, run_id: str, console: CliConsole) -> None:
    """Say so when the run was recorded by a modified build (docs/ledger.md, "Provenance")."""
    try:
        modified = modified_build(started_event(store, run_id))
    except (LedgerError, ConfigError, ValueError):
        return  # an unreadable run.started is reported by the command's own checks
    if modified is not None:
        warning = f"[yellow]warning:[/yellow] {escape(modified)}"
        console.print(warning, soft_wrap=True, highlight=False)


def _local_key() -> str | None:
    try:
        return load_signer(create=False).public_key
    except SigningKeyError:
        return None


def receipt(
    run_id: Annotated[str, typer.Argument(help="The run.")],
    db: DbOption = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
) -> None:
    """Print a signed receipt of a run's history, to publish.

    The receipt holds the head seq and hash signed with this machine's key, the public key,
    and a prefix of every event's hash. `maai verify RUN --receipt FILE` later proves the
    ledger still holds that history: a truncated or rewritten run fails, naming the first
    seq that differs or the missing tail (docs/ledger.md)."""
    store = open_store_or_exit(db)
    _check_chain(store, run_id)
    full = store.get_run(run_id).run_id
    _require_trusted(store, full)
    try:
        data = make_receipt(store, full, _signer())
    except (ReceiptError, LedgerError) as exc:
        raise _fail(str(exc)) from None
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    if output is None:
        typer.echo(text, nl=False)
        return
    if output.exists():
        raise _fail(f"{output}: already exists; choose another name")
    try:
        # Missing folders are created, as by every command that writes a file (-o, --out).
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot write {output}: {exc.strerror or exc}") from None
    err.print(f"wrote the receipt of run {full} to {output}", highlight=False)


def show(
    run_id: Annotated[str, typer.Argument(help="The run to show.")],
    db: DbOption = None,
    no_check: NoCheckOption = False,
) -> None:
    """Status, phase, round, outcome and payoffs of one run (its hash chain checked first), and
    its cost when its config sets prices (docs/studies.md, "Cost")."""
    store = open_store_or_exit(db)
    if not no_check:
        _check_chain(store, run_id)
    run_id, experiment, config = _config_of(store, run_id)
    state, head = _fold(store, run_id, experiment)
    info = store.get_run(run_id)
    out.print(
        f"run [bold]{run_id}[/bold]  {escape(experiment.name)}  "
        f"created {info.created_at:%Y-%m-%d %H:%M:%S}  events {head}",
        highlight=False,
    )
    claimed = first_claim(store, run_id)
    if claimed is not None:
        out.print(
            f"taken by worker {escape(claimed.worker)} on host {escape(claimed.host)}"
            f" (pid {claimed.pid})",
            highlight=False,
        )
    _name_modified_build(store, run_id, out)
    forks = lineage(store)
    if run_id in forks.parents:
        parent, point, seq = forks.parents[run_id]
        out.print(f"fork of {parent} at {escape(point)} (seq {seq})", highlight=False)
    if children := forks.children(run_id):
        out.print(f"forks: {', '.join(children)}", highlight=False)
    summary = experiment.summarize(run_id, state, info.status)
    print_summary(out, summary, _cost(store, run_id, config))
    print_usage(out, store, run_id, config.prices)


def init(
    folder: Annotated[
        Path, typer.Argument(help="Where to write the example configs (default: here).")
    ] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
) -> None:
    """Write the packaged example configs (every experiment's) into FOLDER."""
    try:
        written = config_files.write_examples(folder, force=force)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write to {folder}: {exc.strerror or exc}") from None
    for path in written:
        out.print(f"wrote {path}", highlight=False)


def register(app: typer.Typer) -> None:
    for command in (run, resume, replay, verify, show, receipt, init):
        app.command()(command)
