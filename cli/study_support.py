"""What the study commands share (``cli.study_commands``, ``cli.study_exports``,
``cli.worker_commands``): exit codes, the consoles, and finding a study by its file or name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from maai.cli.common import CliConsole, exit_on_ledger_error, fail, open_store_or_exit
from maai.domain.config import ConfigError
from maai.ledger import EventStore
from maai.runtime import config_files
from maai.runtime.study import Study, load_study, study_runs_in_ledger

EXIT_FAILED_RUNS = 1
EXIT_BUSY = 3
EXIT_BUDGET = 5
EXIT_INTERRUPTED = 130


out = CliConsole(highlight=False, soft_wrap=True)
err = CliConsole(stderr=True, highlight=False, soft_wrap=True)


StudyFileArg = Annotated[
    str,
    typer.Argument(
        metavar="STUDY.yaml",
        help="The study file, or a packaged example study by name (`u_sweep`).",
    ),
]

StudyArg = Annotated[
    str, typer.Argument(metavar="STUDY", help="A study file (YAML), or a study's name.")
]


def _load(path: str, db: str | EventStore | None = None) -> Study:
    """The study; one from a fork point reads its base config from the ledger (``db``, or
    the store given), opened only for it (docs/forks.md)."""

    def opened() -> EventStore:
        return db if isinstance(db, EventStore) else open_store_or_exit(db)

    try:
        return load_study(path, opened)
    except ConfigError as exc:
        fail(str(exc))
    raise AssertionError("unreachable")


def _study_infos(store: EventStore, name_or_file: str) -> tuple[str, list[Any], Study | None]:
    if Path(name_or_file).is_file() or name_or_file in config_files.packaged_studies():
        study = _load(name_or_file, store)
        name = study.file.study
    else:
        study, name = None, name_or_file
    with exit_on_ledger_error():
        infos = study_runs_in_ledger(store).get(name, [])
    if study is None and not infos:
        fail(f"no study named {name!r} in {store.display} (and no such study file)")
    return name, infos, study
