"""Rooms of a size to read (issue 30): no module of the domain is over 500 lines, data tables
included; a larger one is split by what it holds (docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 500


def test_no_domain_module_is_over_500_lines() -> None:
    sources = sorted((ROOT / "domain").rglob("*.py"))
    assert len(sources) > 50  # the walk found the domain
    sizes = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in sources}
    over = [f"{p.relative_to(ROOT)}: {n} lines" for p, n in sizes.items() if n > LIMIT]
    assert not over, "\n".join(over)
