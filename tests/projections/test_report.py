"""``maai report``: the HTML page of a run, without a browser (tests/browser/ opens it in one).

What a reader relies on: the page names nothing outside itself (it opens offline and leaks no
request), every participant's words appear as text and never as markup, the same events give
the same bytes, and the command refuses to overwrite a file as the exports do."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain import experiments
from maai.projections.frohlich import FrohlichViews
from maai.projections.history import History, history_from_events
from maai.projections.report import run_report
from maai.projections.views import lazy
from tests.projections.collaboration.recording import golden_history as collaboration_golden
from tests.projections.conftest import ENGINE_RUN
from tests.projections.hostile import HOSTILE, planted
from tests.support.examples import golden_or_recorded

runner = CliRunner()


class _Page(HTMLParser):
    """Every tag and attribute of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(tag, name, value or "") for name, value in attrs]


def parsed(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


@pytest.mark.parametrize("which", experiments.names())
def test_the_page_references_nothing_outside_itself(
    golden: History, which: str, tmp_path: Path
) -> None:
    history = planted(golden) if which == "frohlich" else golden_or_recorded(which, tmp_path)
    page = run_report(history)
    found = parsed(page)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(found.tags)
    for tag, name, value in found.attributes:
        assert not name.startswith("on"), (tag, name)
        if name in ("href", "src", "xlink:href", "action"):
            assert value.startswith("#"), (tag, name, value)
    style = page[page.index("<style>") : page.index("</style>")]
    assert "url(" not in style and "@import" not in style
    # The only URLs are in what a participant wrote, escaped as text.
    outside_text = re.sub(r">[^<]*<", "><", page)
    assert "http://" not in outside_text and "https://" not in outside_text


def test_participants_words_are_text_not_markup(golden: History) -> None:
    history = planted(golden)
    page = run_report(history)
    assert html.escape(HOSTILE) in page
    assert "<script" not in page and "<img" not in page
    assert 'href="javascript:' not in page and "javascript:window" in page  # as text
    rows = history.experiment.views().table_rows(history)  # type: ignore[union-attr]
    for statement in rows["statements"]:
        assert html.escape(statement["text"]) in page
    for name in history.agent_names:
        assert f">{html.escape(name)}<" in page


@pytest.mark.parametrize("which", experiments.names())
def test_the_same_events_give_the_same_bytes(which: str, tmp_path: Path) -> None:
    events = [entry.event for entry in golden_or_recorded(which, tmp_path).entries]
    first = run_report(history_from_events(events, "same"))
    second = run_report(history_from_events(list(events), "same"))
    assert first == second


def test_the_frohlich_page_has_its_sections_and_plots(golden: History) -> None:
    page = run_report(golden)
    for title in (
        "The run",
        "Conditions and outcome",
        "Rankings of the principles",
        "Phase 1: choices",
        "Payoffs",
        "Phase 2: the discussion",
        "Private trails",
    ):
        assert f"<h2>{title}</h2>" in page
    plots = re.findall(r'data-plot="([^"]+)"', page)
    assert plots == ["first-places", "phase1-choices", "payoffs", "vote-timeline"]
    # The golden run: a failed poll, a passed one, a ballot without consensus, no agreement.
    assert "Poll proposed by alice: alice yes, carol yes, bob no → failed" in page
    assert "Secret ballot: alice (a), bob (b), carol (a) → no consensus" in page
    assert page.count("<details><summary>") == 1 + len(golden.agent_names)  # config + trails


def test_the_collaboration_page_has_its_sections_and_plots() -> None:
    page = run_report(collaboration_golden())
    for title in ("Beliefs and predictions", "Decisions and points", "Messages"):
        assert f"<h2>{title}</h2>" in page
    assert re.findall(r'data-plot="([^"]+)"', page) == ["beliefs", "predictions", "points"]
    assert "Ada&#x27;s prediction of Ben" in page


def test_an_experiment_without_a_report_gets_the_run_facts_alone(
    golden: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As for an experiment whose views package has no report module.
    monkeypatch.setattr(FrohlichViews, "report", lazy("no_report_here:report", optional=True))
    page = run_report(golden)
    assert re.findall(r"<h2>([^<]+)</h2>", page) == ["The run"]
    assert "golden-run" in page and "<svg" not in page


def test_the_command_writes_the_page_and_refuses_to_overwrite_it(
    engine_ledger: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    made = runner.invoke(app, ["report", ENGINE_RUN[:6], "--db", engine_ledger])
    assert made.exit_code == 0, made.output
    written = tmp_path / f"{ENGINE_RUN}.html"
    page = written.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and ENGINE_RUN in page
    assert [p.name for p in tmp_path.iterdir()] == [written.name]  # no .partial left behind

    written.write_text("mine", encoding="utf-8")
    refused = runner.invoke(app, ["report", ENGINE_RUN, "--db", engine_ledger])
    assert refused.exit_code == 2 and "already exists" in refused.output
    assert written.read_text(encoding="utf-8") == "mine"
    forced = runner.invoke(app, ["report", ENGINE_RUN, "--db", engine_ledger, "--force"])
    assert forced.exit_code == 0 and written.read_text(encoding="utf-8") == page

    elsewhere = tmp_path / "out" / "run.html"
    named = runner.invoke(app, ["report", ENGINE_RUN, "--db", engine_ledger, "-o", str(elsewhere)])
    assert named.exit_code == 0 and elsewhere.read_text(encoding="utf-8") == page


def test_an_unknown_run_is_one_line_and_exit_2(engine_ledger: str, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["report", "no-such-run", "--db", engine_ledger, "-o", str(tmp_path / "r.html")]
    )
    assert result.exit_code == 2 and "no-such-run" in result.output
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("which", experiments.names())
def test_a_run_cut_short_anywhere_still_has_a_report(which: str, tmp_path: Path) -> None:
    """An interrupted or running run is reported as far as its events go (every projection
    works on unfinished runs): the page is whole and says the run is not finished."""
    source = golden_or_recorded(which, tmp_path)
    events = [entry.event for entry in source.entries]
    for end in range(1, len(events), 11):
        page = run_report(history_from_events(events[:end], "cut"))
        assert page.endswith("</html>\n") and "status: <strong>running</strong>" in page
