"""The live progress lines of ``maai run``: what the engine's events turn into."""

from __future__ import annotations

import io

from rich.console import Console

from maai.domain.frohlich.events import SpeakingOrderDrawn, StatementMade, StepStarted
from maai.domain.frohlich.state import initial_state
from maai.projections.frohlich.progress import Progress
from tests.support.driver import make_config


def printed(events: list, *, quiet: bool = False) -> list[str]:
    out = io.StringIO()
    console = Console(file=out, width=200)
    progress = Progress(make_config())
    for event in events:
        for line in progress.lines(event, initial_state()):
            if not quiet:
                console.print(line, highlight=False, soft_wrap=True)
    return out.getvalue().splitlines()


def test_phase1_is_announced_once_before_the_first_agent_starts() -> None:
    lines = printed(
        [
            StepStarted(step="1.1", agent="alice"),
            StepStarted(step="1.1", agent="bob"),
            StepStarted(step="1.3", agent="alice", round=2),
        ]
    )
    assert lines[0] == "Phase 1 · agents work alone, in parallel"
    assert [line.split() for line in lines[1:]] == [
        ["alice", "1.1", "initial", "ranking"],
        ["bob", "1.1", "initial", "ranking"],
        ["alice", "1.3", "paid", "round", "2/4"],
    ]


def test_phase2_rounds_speakers_and_votes_are_shown() -> None:
    lines = printed(
        [
            StepStarted(step="2.1"),
            SpeakingOrderDrawn(
                round=1, label="p2/r1/order", order=["bob", "alice"], previous_last=None
            ),
            StatementMade(
                agent="bob",
                round=1,
                turn=1,
                address="p2/r1/bob/statement",
                text="hi",
                proposes_vote=True,
            ),
        ]
    )
    assert lines[0] == "Phase 2 · 2.1 group discussion"
    assert lines[1] == "Round 1/3 order: bob, alice"
    assert lines[2].split() == ["bob", "speaks", "and", "proposes", "a", "vote"]


def test_quiet_prints_nothing() -> None:
    assert printed([StepStarted(step="1.1", agent="alice")], quiet=True) == []
