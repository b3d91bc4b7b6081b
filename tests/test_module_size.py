"""Rooms of a size to read (issue 30): no module of the package (the domain, the ledger, the
runtime, the projections, the CLI, the Python API) is over 500 lines, data tables included; a
larger one is split by what it holds (docs/architecture.md). A new experiment's glue stays
small: the ultimatum example's ``experiment.py`` and views wrapper are under 40 lines together
(docs/experiments.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 500


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("folder", ["domain", "ledger", "runtime", "projections", "cli", "maai"])
def test_no_module_is_over_500_lines(folder: str) -> None:
    sources = sorted((ROOT / folder).rglob("*.py"))
    assert len(sources) > 5  # the walk found the folder
    over = [f"{p.relative_to(ROOT)}: {n} lines" for p in sources if (n := _lines(p)) > LIMIT]
    assert not over, "\n".join(over)


def test_the_plug_in_example_declares_itself_in_under_40_lines() -> None:
    package = ROOT / "examples" / "ultimatum" / "maai_ultimatum"
    glue = [package / "experiment.py", package / "views" / "__init__.py"]
    assert sum(map(_lines, glue)) < 40


def test_the_performance_page_holds_current_figures_in_at_most_300_lines() -> None:
    # Its history lives in docs/history/ (docs/performance.md says so at its top).
    assert _lines(ROOT / "docs" / "performance.md") <= 300
