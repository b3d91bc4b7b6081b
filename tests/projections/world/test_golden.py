"""Golden files: the world's projections of the checked-in recorded run, byte for byte.

A failure here means a projection's output changed. If the change is intended, regenerate
with ``python -m tests.projections.world.regenerate`` and review the diff of
``tests/projections/world/golden/``.
"""

from __future__ import annotations

import pytest

from maai.projections.history import History
from tests.projections.world.recording import GOLDEN, golden_history
from tests.projections.world.regenerate import golden_outputs

RECORDING = "recording.jsonl.gz"
FILES = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def golden() -> History:
    return golden_history()


@pytest.fixture(scope="module")
def outputs(golden: History) -> dict[str, str]:
    return golden_outputs(golden)


def test_every_output_has_a_golden_file_and_back(outputs: dict[str, str]) -> None:
    assert sorted(outputs) == [name for name in FILES if name != RECORDING]


@pytest.mark.parametrize("name", [n for n in FILES if n != RECORDING])
def test_projection_matches_its_golden_file(name: str, outputs: dict[str, str]) -> None:
    expected = (GOLDEN / name).read_bytes()
    assert outputs[name].encode("utf-8") == expected, (
        f"{name} changed; if intended: python -m tests.projections.world.regenerate"
    )


def test_golden_files_stay_small() -> None:
    assert sum((GOLDEN / name).stat().st_size for name in FILES) < 400_000


def test_the_recording_is_the_golden_run(golden: History) -> None:
    # The seed was picked for what it exercises; a re-recording that lost it would be noticed.
    events = [e.event for e in golden.entries]
    assert any(e.TYPE == "answer.rejected" and "whole number of points" in e.reason for e in events)
    assert any(e.TYPE == "answer.accepted" and e.source == "utility" for e in events)
    assert any(e.TYPE == "world.action" and e.outcome == "refused" for e in events)
    assert any(e.TYPE == "pgg.announcement" and not e.matches for e in events)
    plans = [e for e in events if e.TYPE == "world.plan_changed"]
    assert any(e.status == "set" and (e.place or 0) >= 1 for e in plans)  # queued behind
    assert any(e.status == "promoted" for e in plans)
    assert golden.completed and golden.entries[-1].seq == len(golden.entries)
