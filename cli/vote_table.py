"""The text view of ``maai audit votes``: one table per round, printed as it is built.

A long run has thousands of vote rows; rendered as one table, rich held every cell's
segments at once (50 MB for 32 agents x 40 rounds) and, written to a file or a pipe, laid it
out for 80 columns, where the value column was one character wide. Each round's table is now
rendered and written before the next is built, with the same column widths in every round,
and output that goes to no terminal is laid out for :data:`FILE_WIDTH` columns.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from itertools import groupby
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table

Row = dict[str, Any]

TEXT_LIMIT = 160
"""Characters of an answer shown in the text column (the whole text: ``--json``)."""

FILE_WIDTH = 160
"""Columns of the layout where the output goes to a file or a pipe and ``COLUMNS`` is not
set: wide enough that the value and text columns are read across, not down."""

_FIXED = ("seq", "r.t", "kind", "agent", "read by")
_COLUMNS = (*_FIXED, "value", "text", "hash")
_HASH_CHARS = 10


def print_vote_tables(
    console: Console, run_id: str, rows: list[Row], describe_value: Callable[[Row], str]
) -> None:
    """Print ``rows`` (``audit_votes``'s, in seq order) as one table per round."""
    cells = [_cells(row, describe_value) for row in rows]
    widths = {
        name: max([cell_len(name), *(cell_len(c[name]) for c in cells)])
        for name in (*_FIXED, "hash")
    }
    console = laid_out(console)
    console.print(f"votes of run {escape(run_id)} (full texts: --json)")
    for round_, group in groupby(zip(rows, cells, strict=True), key=lambda pair: pair[0]["round"]):
        title = "no round" if round_ is None else f"round {round_}"
        console.print(_table(title, (c for _, c in group), widths))


def laid_out(console: Console) -> Console:
    """``console``, or where it writes to no terminal and ``COLUMNS`` does not say how wide,
    a console on the same output laid out for :data:`FILE_WIDTH` columns (rich would lay
    the tables out for 80, and cannot print wider than its console)."""
    if console.is_terminal or "COLUMNS" in os.environ:
        return console
    return Console(file=console.file, width=FILE_WIDTH, highlight=False, soft_wrap=True)


def _cells(row: Row, describe_value: Callable[[Row], str]) -> dict[str, str]:
    text = row["raw_text"] or ""
    if len(text) > TEXT_LIMIT:
        text = text[: TEXT_LIMIT - 1] + "…"
    if row["reason"]:
        text = f"{text}\n→ {row['reason']}".lstrip("\n")
    read_by = row["source"] or ""
    if row["attempt"] is not None:
        read_by += f" #{row['attempt']}"
    return {
        "seq": str(row["seq"]),
        "r.t": ".".join(str(row[k]) for k in ("round", "turn") if row[k] is not None),
        "kind": row["kind"],
        "agent": row["agent"] or "",
        "read by": read_by.strip(),
        "value": describe_value(row),
        "text": text,
        "hash": row["hash"][:_HASH_CHARS],
    }


def _table(title: str, cells: Iterable[dict[str, str]], widths: dict[str, int]) -> Table:
    table = Table(title=title, show_lines=True, expand=True)
    for name in _FIXED:
        table.add_column(name, no_wrap=True, width=widths[name])
    table.add_column("value", ratio=2, overflow="fold", min_width=12)
    table.add_column("text", ratio=3, overflow="fold", min_width=24)
    table.add_column("hash", no_wrap=True, width=widths["hash"])
    for cell in cells:
        table.add_row(*(escape(cell[name]) for name in _COLUMNS))
    return table
