"""Every experiment's run report, and a study report, for runs that failed, were interrupted,
or have no event at all: the page is whole, a failed run says why (its reason, where, and
how to resume), and no Python object reaches the page as Python writes it (a dict, a
function, an object's address), escaped or not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from maai.domain import experiments
from maai.domain.events import Event, ModelAttemptFailed, RunFailed
from maai.projections.history import History, history_from_events
from maai.projections.markup import Markup
from maai.projections.report import Section, page_shell, run_report
from maai.projections.study_report import study_report
from tests.support.examples import golden_or_recorded

PYTHON_LEFTOVERS = re.compile(
    r"\{'|\{&#x27;|\{&#39;|<built-in|&lt;built-in|object at 0x|\bNone</|>None<|\bTrue<|>False<"
)
REASON = "model kept failing: HTTP 500 <overloaded> & 'busy'"


def unfinished(which: str, folder: Path) -> dict[str, History]:
    source = golden_or_recorded(which, folder)
    events: list[Event] = [entry.event for entry in source.entries]
    cut = events[: len(events) // 3]
    failure: list[Event] = [
        ModelAttemptFailed(
            address="a/1",
            agent="agent-1",
            attempt=1,
            error_kind="http",
            status=500,
            message="{'error': 'overloaded'}",
            retryable=True,
        ),
        RunFailed(reason=REASON, address="a/1", agent="agent-1"),
    ]
    experiment = source.experiment
    return {
        "failed": history_from_events(cut + failure, f"{which}-failed", "failed", experiment),
        "interrupted": history_from_events(cut, f"{which}-interrupted", "interrupted", experiment),
        "empty": history_from_events([], f"{which}-empty", "created", experiment),
    }


@pytest.mark.parametrize("which", experiments.names())
def test_unfinished_runs_have_whole_pages_without_python_leftovers(
    which: str, tmp_path: Path
) -> None:
    runs = unfinished(which, tmp_path)
    for status, history in runs.items():
        page = run_report(history)
        assert page.endswith("</html>\n"), status
        found = PYTHON_LEFTOVERS.findall(page)
        assert found == [], (status, found)
        assert f"status: <strong>{history.status}</strong>" in page
    failed = run_report(runs["failed"])
    # The reason is shown as text, escaped, with where it happened and what to do.
    words = re.search(r"<dt>failure</dt><dd>(.*?)</dd>", failed)
    assert words is not None
    assert words[1].startswith("model kept failing: HTTP 500 &lt;overloaded&gt; &amp; &#x27;busy")
    assert "call a/1, agent agent-1" in words[1] and f"maai resume {which}-failed" in words[1]


@pytest.mark.parametrize("which", experiments.names())
def test_a_study_of_unfinished_runs_has_a_whole_page(which: str, tmp_path: Path) -> None:
    page = study_report("unfinished", list(unfinished(which, tmp_path).values()), None, None)
    assert page.endswith("</html>\n")
    assert PYTHON_LEFTOVERS.findall(page) == []


def test_a_page_part_that_is_not_markup_is_refused() -> None:
    with pytest.raises(TypeError, match="Markup"):
        page_shell("t", Markup("s"), [Section("x", {"a": 1})], Markup("f"))  # type: ignore[arg-type]
