"""``maai replay | verify | show | receipt | init``: reading and checking stored runs from
the terminal (and writing the example configs).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from maai.cli.common import DbOption, exit_code_for, open_store_or_exit
from maai.cli.run_support import (
    EXIT_FAILED,
    NoCheckOption,
    _chain_broken,
    _check_chain,
    _config_of,
    _cost,
    _fail,
    _fold,
    _local_key,
    _name_modified_build,
    _require_trusted,
    _signer,
    err,
    out,
)
from maai.cli.summary import print_summary, print_usage
from maai.domain.calls import ModelRequest
from maai.domain.config import ConfigError
from maai.ledger import EventStore, LedgerError, StoredEvent
from maai.runtime import config_files
from maai.runtime.checkpoints import ReceiptError, check_checkpoints, check_receipt
from maai.runtime.checkpoints import receipt as make_receipt
from maai.runtime.fold import FOLD_KEEPS_PACKED
from maai.runtime.forks import check_parent_receipt, check_prefix, forked_of, lineage
from maai.runtime.runs import first_claim, stored_config
from maai.runtime.signing import fingerprint
from maai.runtime.verify import ChainCheck, check_run_row, reuse_large_blocks, verify_events


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
    for command in (replay, verify, show, receipt, init):
        app.command()(command)
