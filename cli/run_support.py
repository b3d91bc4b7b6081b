"""What the run commands share (``cli.run_commands``, ``cli.check_commands``,
``cli.fork_commands``): exit codes, the consoles, one-line failures, the signer, and reading a
stored run's chain, config and state with a clear error.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape

from maai.cli.common import EXIT_BUSY, EXIT_FULL, CliConsole, exit_code_for
from maai.domain.config import ConfigError, ExperimentConfig
from maai.domain.experiment import Experiment
from maai.ledger import ChainReport, EventStore, LedgerError
from maai.projections.build import modified_build
from maai.runtime.fold import UnreadableHistoryError, load_state
from maai.runtime.runs import started_event, stored_config
from maai.runtime.signing import KEY_ENV, Signer, SigningKeyError, load_signer
from maai.runtime.trust import UntrustedRunError, require_trusted

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
