"""The ``maai`` command's entry point. It imports nothing until it runs, so that a Ctrl-C
that lands while the command line is still loading (imports take a moment) ends as cleanly
as one that lands later: one line and exit 130, never a traceback."""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130


def main() -> None:
    try:
        from maai.cli.app import main as run_cli

        run_cli()
    except KeyboardInterrupt:
        # Commands that record anything catch Ctrl-C themselves and say what was kept; this
        # is the moment before (or after) any of them ran.
        sys.stderr.write("interrupted.\n")
        sys.exit(EXIT_INTERRUPTED)
