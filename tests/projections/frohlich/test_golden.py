"""Golden files: the projections of the checked-in recorded run, byte for byte.

A failure here means a projection's output changed. If the change is intended, regenerate
with ``python -m tests.projections.frohlich.regenerate`` and review the diff of
``tests/projections/frohlich/golden/``.
"""

from __future__ import annotations

import pytest

from maai.projections.history import History
from tests.projections.frohlich.recording import GOLDEN
from tests.projections.frohlich.regenerate import golden_outputs

FILES = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def outputs(golden: History) -> dict[str, str]:
    return golden_outputs(golden)


def test_every_output_has_a_golden_file_and_back(outputs: dict[str, str]) -> None:
    assert sorted(outputs) == [name for name in FILES if name != "recording.jsonl.gz"]


@pytest.mark.parametrize("name", [n for n in FILES if n != "recording.jsonl.gz"])
def test_projection_matches_its_golden_file(name: str, outputs: dict[str, str]) -> None:
    expected = (GOLDEN / name).read_bytes()
    assert outputs[name].encode("utf-8") == expected, (
        f"{name} changed; if intended: python -m tests.projections.frohlich.regenerate"
    )


def test_golden_files_stay_small() -> None:
    assert sum((GOLDEN / name).stat().st_size for name in FILES) < 1_000_000


def test_the_recording_is_the_golden_run(golden: History) -> None:
    # Seed 52 was picked for what it exercises; a re-recording that lost it would be noticed.
    types = {e.event.TYPE for e in golden.entries}
    assert {"answer.missing", "round.unpaid", "answer.undecided", "ballot.resolved"} <= types
    assert golden.completed and golden.entries[-1].seq == len(golden.entries)
