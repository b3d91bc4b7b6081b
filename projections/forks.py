"""A fork's tables (docs/forks.md, "Tables"): by default only what happened after its fork
point; with the prefix, every row marked ``inherited`` or not.

Generic, with no experiment's rules: a row is inherited when the fork's prefix alone (the
history cut before its own ``run.forked``) gives the very same row. A row that the prefix
gives otherwise (a total that later events changed) is the fork's own."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from maai.domain.events import RunForked
from maai.projections.history import History
from maai.projections.tables import label_columns

INHERITED = "inherited"


def prefix_of(history: History) -> History | None:
    """The fork's history before its own ``run.forked``; ``None`` for a run that is no fork."""
    # Found by position, decoding no other event: a run that is no fork costs nothing here.
    forks = history.positions(RunForked)
    if not forks:
        return None
    return replace(history, entries=tuple(history.entries[: forks[-1]]), stored_status=None)


def fork_note(history: History) -> dict[str, object] | None:
    """What a fork's JSON export says of its prefix (docs/forks.md, "Tables"): its parent,
    point, and the seqs it inherited (its events ``1..parent_seq`` are the parent's);
    ``None`` for a run that is no fork."""
    forks = history.of(RunForked)
    if not forks:
        return None
    entry, forked = forks[-1]
    return {
        "parent_run": forked.parent_run,
        "point": forked.point,
        "parent_seq": forked.parent_seq,
        "forked_seq": entry.seq,
        "inherited_seqs": [1, forked.parent_seq],
    }


def transcript_note(history: History) -> str:
    """The line a fork's transcript opens with: what of it is inherited; empty for a run
    that is no fork."""
    note = fork_note(history)
    if note is None:
        return ""
    return (
        f"> A fork of run {note['parent_run']} at {note['point']}: its events 1 to "
        f"{note['parent_seq']} are the parent's (inherited); from event {note['forked_seq']} "
        "(`run.forked`) on, they are this run's own.\n\n"
    )


def inherited_flags(
    rows: Iterable[Sequence[str]], prefix_rows: Iterable[Sequence[str]]
) -> list[bool]:
    """For each row (its identifying cells, as text), whether it is inherited: the prefix
    gives the very same row. Matched as multisets, so a row the prefix gives once and the
    fork twice is inherited once."""
    left = Counter(map(tuple, prefix_rows))
    flags: list[bool] = []
    for row in rows:
        key = tuple(row)
        inherited = left[key] > 0
        if inherited:
            left[key] -= 1
        flags.append(inherited)
    return flags


def own_key(row: Sequence[str], labels: int) -> tuple[str, ...]:
    """A CSV table row as compared between a fork and its prefix: its ``run_id`` and its
    table's own cells, without the ``labels`` label columns that follow ``run_id`` (the
    prefix carries the parent's labels; a fork's differ when it was given its own)."""
    return (row[0], *row[1 + labels :]) if row else ()


def mark_inherited(
    files: Mapping[str, str],
    histories: Sequence[History],
    tables: Callable[[Sequence[History]], Mapping[str, str]],
    with_prefix: bool,
) -> Mapping[str, str]:
    """``files`` (file name -> CSV text, as ``ExperimentViews.tables`` gives for
    ``histories``) with the forks' inherited rows left out, or (``with_prefix``) kept and
    marked in an ``inherited`` column (``true``/``false``)."""
    prefixes = [p for p in map(prefix_of, histories) if p is not None]
    if not prefixes:
        # As given: tables rendered row by row are written as their rows come, never held
        # whole (cli export's write_table_file); a dict of them would hold every table.
        return files
    inherited_files = tables(prefixes)
    labels, prefix_labels = len(label_columns(histories)), len(label_columns(prefixes))
    out = dict(files)
    for name, text in files.items():
        if not name.endswith(".csv"):
            continue
        header, rows = _parse(text)
        if not header:
            continue
        _, prefix_rows = _parse(inherited_files.get(name, ""))
        flags = inherited_flags(
            (own_key(row, labels) for row in rows),
            (own_key(row, prefix_labels) for row in prefix_rows),
        )
        if with_prefix:
            kept = [
                [*row, "true" if flag else "false"] for row, flag in zip(rows, flags, strict=True)
            ]
        else:
            kept = [row for row, flag in zip(rows, flags, strict=True) if not flag]
        out[name] = _write([*header, INHERITED] if with_prefix else header, kept)
    return out


def _parse(text: str) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(text)))
    return (rows[0], rows[1:]) if rows else ([], [])


def _write(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _after(history: History, upto: int) -> tuple[str, int, int]:
    """The run's outcome, and the calls and tokens of its events after seq ``upto``."""
    from maai.domain.events import ModelCallCompleted

    outcome = ""
    if history.experiment is not None:
        state = history.experiment.fold([e.event for e in history.entries])
        outcome = history.experiment.summarize(history.run_id, state, history.status).outcome
    calls = tokens = 0
    for entry in history.entries:
        if entry.seq > upto and isinstance(entry.event, ModelCallCompleted):
            usage = entry.event.answer.usage
            calls += 1
            tokens += usage.input_tokens + usage.output_tokens
    return outcome, calls, tokens


def fork_facts(history: History, parent: History | None) -> tuple[list, list] | None:
    """A fork's report opening: its parent, point, draws and changes, and parent and fork
    side by side from the point (outcome, events, calls and tokens after it); ``None`` for
    a run that is no fork."""
    forks = history.of(RunForked)  # decodes these alone: no other event is held for it
    if not forks:
        return None
    entry = forks[-1][0]
    forked = entry.event
    assert isinstance(forked, RunForked)
    changes = ", ".join(f"{k} = {v}" for k, v in sorted(forked.changes.items())) or "none"
    pairs = [
        ("fork of", forked.parent_run),
        ("at", f"{forked.point} (the parent's seq {forked.parent_seq})"),
        ("draws", "the parent's streams" if forked.draws == "same" else f"own seed {forked.seed}"),
        ("changes", changes),
    ]
    mine = _after(history, entry.seq)
    rows = [
        [
            "fork",
            history.run_id,
            history.status,
            mine[0],
            len(history.entries) - entry.seq,
            mine[1],
            mine[2],
        ]
    ]
    if parent is not None:
        theirs = _after(parent, forked.parent_seq)
        rows.insert(
            0,
            [
                "parent",
                parent.run_id,
                parent.status,
                theirs[0],
                len(parent.entries) - forked.parent_seq,
                theirs[1],
                theirs[2],
            ],
        )
    return pairs, rows
