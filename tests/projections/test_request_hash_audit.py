"""The protocol audit recomputes version-2 request hashes with code of its own
(``projections/request_hashes.py``): a clean run passes; a moved cut, an edited history
text and a wrong digest from the code that made the hashes are each caught. On Frohlich's
runs: its discussion requests are the ones with cuts."""

from __future__ import annotations

import pytest

from maai.canonical import SharedText
from maai.domain.calls import HashCut, ModelRequest
from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich.experiment import EXPERIMENT
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.history import history_from_events
from tests.support.driver import agreeable, drive, make_config


def run_events(version: int | None) -> list[Event]:
    return drive(make_config(), agreeable, request_hash_version=version)[1]


def calls_paired(events: list[Event]) -> list[int | None]:
    report = audit_protocol(history_from_events(events, experiment=EXPERIMENT))
    return [v.seq for v in report.violations if v.rule == "calls_paired"]


def cut_requests(events: list[Event]) -> list[int]:
    return [
        i
        for i, e in enumerate(events)
        if isinstance(e, ModelCallRequested) and e.request.hash_cuts is not None
    ]


@pytest.mark.parametrize("version", [None, 2])
def test_a_clean_run_passes(version: int | None) -> None:
    events = run_events(version)
    assert bool(cut_requests(events)) == (version == 2)
    assert calls_paired(events) == []


def with_request(events: list[Event], i: int, request: ModelRequest) -> list[Event]:
    event = events[i]
    assert isinstance(event, ModelCallRequested)
    return [*events[:i], event.model_copy(update={"request": request}), *events[i + 1 :]]


def test_a_moved_cut_or_an_edited_history_is_caught() -> None:
    events = run_events(2)
    i = cut_requests(events)[-1]
    request = events[i].request  # type: ignore[attr-defined]
    cut = request.hash_cuts[0]
    assert cut.path == "input"
    moved = request.model_copy(
        update={"hash_cuts": [HashCut(path="input", start=cut.start + 1, end=cut.end)]}
    )
    text = request.input
    edited = request.model_copy(
        update={
            "input": text[: cut.end - 1]
            + ("x" if text[cut.end - 1] != "x" else "y")
            + text[cut.end :]
        }
    )
    for changed in (moved, edited):
        assert calls_paired(with_request(events, i, changed)) == [i + 1]


def test_a_wrong_digest_from_the_hashing_code_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # A bug in the code that makes the hashes: the audit does not share it.
    monkeypatch.setattr(SharedText, "sha256", lambda self: "0" * 64)
    events = run_events(2)
    monkeypatch.undo()
    with_text_cut = [
        i + 1
        for i in cut_requests(events)
        if any(cut.path == "input" for cut in events[i].request.hash_cuts)  # type: ignore[attr-defined]
    ]
    assert with_text_cut and calls_paired(events) == with_text_cut
