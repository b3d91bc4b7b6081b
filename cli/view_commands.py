"""``maai view``: serve a local, read-only web viewer of the ledger (docs/view.md)."""

from __future__ import annotations

import ipaddress
import logging
import webbrowser
from typing import TYPE_CHECKING, Annotated

import typer

from maai.cli.common import DbOption, fail
from maai.ledger import LedgerError

if TYPE_CHECKING:
    from maai.runtime.view.studies import StudyPlan

VIEW_EXTRA = "pip install 'maai[view]'"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def view(
    db: DbOption = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="The port to listen on.")
    ] = 8765,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="The address to listen on. Any other than this machine's loopback needs the "
            "token printed at start in every browser that opens it.",
        ),
    ] = "127.0.0.1",
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the runs page in the default browser.")
    ] = False,
    study: Annotated[
        list[str] | None,
        typer.Option(
            "--study",
            metavar="FILE",
            help="A study file (repeatable): its page then counts the runs it plans and not "
            "yet started as pending and shows its budget (a study submitted to workers "
            "needs none: its jobs carry its plan).",
        ),
    ] = None,
) -> None:
    """Serve a live, read-only web viewer of every run and study in the ledger: the runs
    (filtered, sorted, paged), each run as it is written (timeline, transcript, private
    trails, every call's prompt and answer, memory diffs, audits, the report's sections),
    studies and two runs compared. It never writes to the ledger. Needs the view extra
    (pip install 'maai[view]'). See docs/view.md."""
    try:
        import uvicorn

        from maai.runtime.view.app import create_app, new_token
    except ImportError as exc:
        fail(f"maai view needs {exc.name}, which is not installed: {VIEW_EXTRA}")
    token = None if is_loopback(host) else new_token()
    app = create_app(db, token, study_plans(study or [], db))
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/"
    link = address if token is None else f"{address}?token={token}"
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    typer.echo(f"maai view: serving {db or 'the default ledger'} read-only at {link}", err=True)
    if token is not None:
        typer.echo(
            f"maai view: {host} is reachable from other machines; every browser needs the "
            "token in the URL above",
            err=True,
        )
    if open_browser:
        webbrowser.open(link)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def study_plans(paths: list[str], db: str | None) -> dict[str, StudyPlan]:
    """The plans of the study files named, by study name; a bad file is one line, exit 2."""
    from maai.domain.config import ConfigError
    from maai.ledger import EventStore
    from maai.runtime.study import load_study
    from maai.runtime.view.studies import file_plan

    plans: dict[str, StudyPlan] = {}
    for path in paths:
        try:  # a study from a fork point reads its base config from the run forked
            study = load_study(path, lambda: EventStore.open(db, read_only=True))
        except (ConfigError, LedgerError) as exc:
            fail(f"--study {path}: {exc}")
        plans[study.file.study] = file_plan(
            [run.run_id for run in study.runs], study.file.budget_usd
        )
    return plans


def register(app: typer.Typer) -> None:
    app.command("view")(view)
