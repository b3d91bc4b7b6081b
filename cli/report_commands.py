"""``maai report RUN_ID``: one self-contained HTML page of a run (docs/projections.md,
"Reports"). Options, errors and exit codes as ``maai export`` (cli/export_commands.py): 0 ok,
2 a usage, store or file error (one line naming the run or file), 3 the store is busy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from maai.cli.common import DbOption, fail, open_store_or_exit
from maai.cli.export_commands import RunArg, load_history, refuse_to_overwrite
from maai.cli.run_source import StoredRun
from maai.ledger import EventStore, LedgerError
from maai.projections.history import History
from maai.projections.report import run_report


def write_whole(path: Path, text: str) -> None:
    """Written beside its final name and renamed into place, so the page is whole or absent
    (as the JSON export), never cut short by a full disk or a kill."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8", newline="\n")
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        fail(f"cannot write {path}: {exc.strerror or exc}")


def report(
    run_id: RunArg,
    db: DbOption = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="The HTML file to write (default: RUN_ID.html in the current folder).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write one self-contained HTML report of a run: the run's facts and config, then its
    experiment's sections with plots (Frohlich: rankings, Phase-1 choices, payoffs, the
    discussion with a vote timeline, each participant's private trail; collaboration:
    beliefs, predictions, decisions, points, messages). It opens offline in any browser:
    inline style and SVG plots, no script, font or image from elsewhere. The same events
    give the same bytes. See docs/projections.md ("Reports")."""
    if output is not None and not force:
        refuse_to_overwrite(output, None)
    with open_store_or_exit(db) as store:
        # Prompts kept aside: the report reads the agent log, which names them.
        history = load_history(store, run_id, keep_prompts=True)
        # The default name needs the full run id, known only once the prefix is resolved.
        target = output if output is not None else Path(f"{history.run_id}.html")
        if output is None and not force:
            refuse_to_overwrite(target, None)
        if target.is_dir():
            fail(f"{target}: is a folder; -o names the file to write")
        page = run_report(history, _parent(store, history))
    write_whole(target, page)
    typer.echo(f"wrote {target}", err=True)


def _parent(store: EventStore, history: History) -> History | None:
    """A fork's parent, where this ledger holds it (its report sits beside the fork's)."""
    from maai.runtime.forks import forked_of

    forked = forked_of(store, history.run_id)
    if forked is None:
        return None
    try:
        info = store.get_run(forked.parent_run)
        return StoredRun(store, info.run_id).load(info.status)
    except (LedgerError, ValueError):  # not in this ledger, or unreadable: the fork alone
        return None


def register(app: typer.Typer) -> None:
    app.command("report")(report)
