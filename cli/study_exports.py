"""``maai study export | report``: a study's tables (CSV, and Parquet with the analysis
extra) and its HTML report (docs/studies.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from maai.cli.common import DbOption, exit_on_ledger_error, fail, open_store_or_exit
from maai.cli.files import refuse_to_overwrite, write_file, write_whole
from maai.cli.run_source import StoredRun
from maai.cli.study_support import StudyArg, _study_infos, err
from maai.projections.history import History
from maai.projections.study import study_tables
from maai.projections.tables import to_csv


def export_command(
    study_arg: StudyArg,
    out_dir: Annotated[Path, typer.Option("--out", help="The folder to write the tables to.")],
    db: DbOption = None,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a folder that is not empty.")
    ] = False,
    with_prefix: Annotated[
        bool,
        typer.Option(
            "--with-prefix",
            help="Keep each fork's rows from its parent's prefix, marked in an `inherited` "
            "column (by default a fork's tables hold what followed its fork point; "
            "docs/forks.md).",
        ),
    ] = False,
) -> None:
    """The study's tables: `runs.csv` (one row per run, with its factor values) and the
    experiment's tables stacked over the runs, each as CSV and, with the `analysis` extra
    installed, Parquet; with their data dictionaries. A study of forks holds what each run
    did after its fork point, not the shared prefix once per replicate (`--with-prefix`)."""
    if not force:
        refuse_to_overwrite(None, out_dir)
    with open_store_or_exit(db) as store:
        _, infos, _ = _study_infos(store, study_arg)
        histories: list[History] = []
        with exit_on_ledger_error():
            for info in infos:  # without their prompts: tables show none
                histories.append(StoredRun(store, info.run_id).load(info.status))
            written = write_study_tables(out_dir, histories, with_prefix=with_prefix)
    err.print(f"wrote {written} files for {len(histories)} run(s) to {out_dir}")


def write_study_tables(
    out_dir: Path, histories: list[History], *, with_prefix: bool = False
) -> int:
    """The runs table and the experiments' tables of ``histories`` into ``out_dir``: CSV,
    and Parquet beside each with the analysis extra; forks' inherited rows left out unless
    ``with_prefix`` (docs/forks.md). Returns how many files were written."""
    from maai.projections.study import study_table_types

    types = study_table_types(histories, with_prefix=with_prefix)
    written = 0
    for name, content in study_tables(histories, with_prefix=with_prefix).items():
        text = to_csv(content[1], content[0]) if isinstance(content, tuple) else content
        write_file(out_dir / name, text)
        written += 1
        if name.endswith(".csv") and _parquet(out_dir / name, text, types.get(name)):
            written += 1
    return written


def report_command(
    study_arg: StudyArg,
    db: DbOption = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="The HTML file to write (default: STUDY.html in the current folder).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write one self-contained HTML report of a study: its plan, runs by status, calls and
    tokens, every run (with the command for its own page), then its experiment's results by
    condition with plots and statistics (Frohlich: agreement, the agreed principle against
    the study file's reference with a test chosen by rule, rounds, payoffs, the manipulator's
    target; collaboration: collaboration and mismatch rates by u with 95% intervals, beliefs),
    and for every factor its outcomes compared between levels (tests chosen by rule, effect
    sizes, Holm-corrected pairs; the study file's confounds printed). Give the study file (not
    its name) for its reference distribution and confounds. See docs/studies.md ("Report",
    "Statistics")."""
    from maai.projections.study_report import study_report

    with open_store_or_exit(db) as store:
        name, infos, study = _study_infos(store, study_arg)
        target = output if output is not None else Path(f"{name}.html")
        if not force:
            refuse_to_overwrite(target, None)
        if target.is_dir():
            fail(f"{target}: is a folder; -o names the file to write")
        with exit_on_ledger_error():
            # Without their prompts (docs/projections.md, "Memory"): the page shows none.
            histories = [StoredRun(store, info.run_id).load(info.status) for info in infos]
            page = study_report(
                name, histories, study.file if study else None, study.source if study else None
            )
    write_whole(target, page)
    err.print(f"wrote {target} ({len(histories)} run(s))")


def _parquet(csv_path: Path, text: str, types: dict[str, Any] | None) -> bool:
    """A Parquet copy of a CSV table, typed by its declared schema; ``False`` without the
    analysis extra, or (said on stderr) where a column's type is not declared: a type is
    never guessed from the data."""
    from maai.projections.schema import write_parquet

    try:
        return write_parquet(csv_path, text, types or {})
    except KeyError as exc:
        err.print(f"no Parquet for {csv_path.name}: {escape(str(exc.args[0]))}", highlight=False)
        return False


def parquet_beside(csv_path: Path, types: dict[str, Any]) -> bool:
    """As :func:`_parquet`, for a table already written to ``csv_path`` (read from the file,
    never held whole)."""
    from maai.projections.schema import write_parquet_beside

    try:
        return write_parquet_beside(csv_path, types)
    except KeyError as exc:
        err.print(f"no Parquet for {csv_path.name}: {escape(str(exc.args[0]))}", highlight=False)
        return False
