"""``maai view``: serve a local, read-only web viewer of the ledger (docs/view.md)."""

from __future__ import annotations

import ipaddress
import logging
import webbrowser
from typing import Annotated

import typer

from maai.cli.common import DbOption, fail

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
    app = create_app(db, token)
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


def register(app: typer.Typer) -> None:
    app.command("view")(view)
