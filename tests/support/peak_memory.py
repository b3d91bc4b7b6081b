"""The peak memory a CLI command allocates (tracemalloc), for the bounded-memory tests."""

from __future__ import annotations

import tracemalloc

from typer.testing import CliRunner

from maai.cli.app import app

runner = CliRunner()


def peak_bytes(args: list[str]) -> int:
    """Peak bytes traced while ``maai ARGS`` runs; the command must succeed or report a
    finding (exit code 1 from an audit)."""
    tracemalloc.start()
    try:
        result = runner.invoke(app, args, env={"COLUMNS": "200"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code in (0, 1), result.output  # 1: an audit found something
    return peak
