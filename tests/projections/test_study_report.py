"""``maai study report``: the HTML page of a study, without a browser (tests/browser/ opens it
in one). Two small simulated studies are run by ``maai study run`` on temporary ledgers.

What a reader relies on: the page names nothing outside itself, a factor value is text and
never markup, the same runs give the same bytes, every run is listed with the command for its
own page, and the numbers shown are the runs' numbers (rates with their Wilson intervals, the
χ² test against the study file's reference)."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from maai.domain import experiments
from maai.ledger import EventStore
from maai.projections.history import History, history_from_stored
from maai.projections.statistics import goodness_of_fit, independence, wilson_interval
from maai.runtime.study import study_runs_in_ledger
from tests.projections.studies import (
    COLLABORATION,
    FROHLICH,
    FROHLICH_CONFOUND,
    HOSTILE_COMPANY,
    run_study,
    write_report,
)
from tests.projections.test_report import parsed


@pytest.fixture(scope="module")
def collaboration(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return run_study(tmp_path_factory.mktemp("collaboration"), COLLABORATION)


@pytest.fixture(scope="module")
def frohlich(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    return run_study(tmp_path_factory.mktemp("frohlich"), FROHLICH)


def page_of(study: tuple[str, Path], folder: Path, by_name: bool = False) -> str:
    db, path = study
    name = re.search(r"^study: (\S+)", path.read_text(), re.M)
    assert name is not None
    target = folder / "page.html"
    result = write_report(db, name[1] if by_name else str(path), target, "--force")
    assert result.exit_code == 0, result.output
    return target.read_text(encoding="utf-8")


def histories(db: str, name: str) -> list[History]:
    with EventStore.open(db) as store:
        infos = study_runs_in_ledger(store)[name]
        return [history_from_stored(i.run_id, store.read(i.run_id), i.status) for i in infos]


def visible_text(page: str) -> str:
    main = page[page.index("<main>") :]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main)))


def headings(page: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r"<h2>(.*?)</h2>", page)]


def plot_names(page: str) -> list[str]:
    return re.findall(r'data-plot="([^"]+)"', page)


def small_study(which: str) -> dict[str, Any]:
    """Two runs of an experiment's example config, as a study."""
    return {"study": f"{which}-small", "base": which, "replicates": 2, "seed": 1}


@pytest.mark.parametrize("which", experiments.names())
def test_the_page_references_nothing_outside_itself(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """For every installed experiment: the two studies above, another's two example runs."""
    if which in ("collaboration", "frohlich"):
        study = request.getfixturevalue(which)
    else:
        (tmp_path / "study").mkdir()
        study = run_study(tmp_path / "study", small_study(which))
    page = page_of(study, tmp_path)
    found = parsed(page)
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(found.tags)
    for tag, name, value in found.attributes:
        assert not name.startswith("on"), (tag, name)
        if name in ("href", "src", "xlink:href", "action"):
            assert value.startswith("#"), (tag, name, value)
    assert "url(" not in page and "@import" not in page
    assert "http:" not in page and "https:" not in page and "//" not in visible_text(page)


def test_the_same_runs_give_the_same_bytes(collaboration: tuple[str, Path], tmp_path: Path) -> None:
    first = page_of(collaboration, tmp_path / "one")
    second = page_of(collaboration, tmp_path / "two")
    assert first == second


def test_a_factor_value_is_text_never_markup(
    collaboration: tuple[str, Path], tmp_path: Path
) -> None:
    page = page_of(collaboration, tmp_path)
    assert "<script" not in page and "<b>" not in page
    assert html.escape(HOSTILE_COMPANY) in page
    assert HOSTILE_COMPANY in visible_text(page)


def test_the_collaboration_page_shows_the_study_and_its_rates(
    collaboration: tuple[str, Path], tmp_path: Path
) -> None:
    db, _ = collaboration
    page = page_of(collaboration, tmp_path)
    assert headings(page) == [
        "The study",
        "Collaboration and mismatch by u",
        "Beliefs by condition",
        "Comparisons between conditions",
    ]
    assert plot_names(page) == [
        "collaboration-rate",
        "mismatch-rate",
        "beliefs-by-condition",
        "compare-agents.u-value-joint-project",
        "compare-agents.u-value-mismatch",
    ]
    # The company factor has one value: nothing to compare by it.
    assert "One level: nothing to compare." in visible_text(page)
    text = visible_text(page)
    assert "agents.u_value: 0.55, 0.85" in text and "completed / failed / other 6 / 0 / 0" in text
    runs = histories(db, "collab")
    assert len(runs) == 6
    for history in runs:  # every run, with the command that writes its own page
        assert f"maai report {history.run_id}" in text
    # The u* of the default options (docs/collaboration.md §1): B's 0.693 is the lowest.
    assert 'class="rule"' in page and "u* = 0.693" in text
    # Each u-value's rate and Wilson interval, from the runs' own decisions.
    for u in (0.55, 0.85):
        made = [
            d
            for h in runs
            for d in h.experiment.views().table_rows(h)["decisions"]  # type: ignore[union-attr]
            if d["u_value"] == u and d["strategy"] is not None
        ]
        yes = sum(1 for d in made if d["strategy"] == "collaborative")
        low, high = wilson_interval(yes, len(made))
        assert f"{u} {len(made)} {yes} {yes / len(made):.2f} [{low:.2f}, {high:.2f}]" in text


def test_the_frohlich_page_tests_the_agreements_against_the_reference(
    frohlich: tuple[str, Path], tmp_path: Path
) -> None:
    db, _ = frohlich
    page = page_of(frohlich, tmp_path)
    assert headings(page) == [
        "The study",
        "Agreement and the agreed principle",
        "Rounds to consensus",
        "Payoffs by condition",
        "The manipulator's target",
        "Comparisons between conditions",
    ]
    assert "agreed-principle" in plot_names(page)
    text = visible_text(page)
    assert "an illustrative reference <i>not</i> a published one" in text  # escaped, shown
    assert "<i>not</i>" not in page
    # The reference is drawn beside the conditions, as a group of crosses without interval.
    plot = page[page.index('data-plot="agreed-principle"') :]
    plot = plot[: plot.index("</svg>")]
    assert "the reference as crosses</title>" in plot and "(no n)" in plot
    # The pooled test is the test of the runs' own agreed principles against the reference.
    agreed: dict[str, int] = {p: 0 for p in "abcd"}
    for history in histories(db, "frohlich-small"):
        row: dict[str, Any] = history.experiment.views().table_rows(history)["conditions"][0]  # type: ignore[union-attr]
        if row["agreement"]:
            agreed[row["agreement"]] += 1
    expected = goodness_of_fit(agreed, FROHLICH["reference"]["agreed_principle"])
    pooled = f"all conditions {sum(agreed.values())} {expected.name}"
    if expected.p_value is None:
        pooled += f" — — — no test: {expected.not_applicable}"
    elif expected.dof is None:
        pooled += f" — — {expected.p_value:.4f}"
    else:
        pooled += f" χ² = {expected.statistic:.3f} {expected.dof} {expected.p_value:.4f}"
    assert pooled in text


def test_the_frohlich_page_compares_the_conditions_with_the_runs_own_counts(
    frohlich: tuple[str, Path], tmp_path: Path
) -> None:
    db, _ = frohlich
    text = visible_text(page_of(frohlich, tmp_path))
    comparisons = text[text.index("Comparisons between conditions") :]
    # The declared confound is printed, as text.
    assert "Confounded by design (the study file's confounds): " + FROHLICH_CONFOUND in text
    agreed: dict[str, list[bool]] = {"null": [], '{"agent":"Dmitri"}': []}
    for history in histories(db, "frohlich-small"):
        labels = history.config.labels  # type: ignore[union-attr]
        row: dict[str, Any] = history.experiment.views().table_rows(history)["conditions"][0]  # type: ignore[union-attr]
        agreed[str(labels["manipulator"])].append(row["agreement"] is not None)
    for level, values in agreed.items():
        yes, n = sum(values), len(values)
        low, high = wilson_interval(yes, n)
        assert f"{level} {n} {yes} {yes / n:.2f} [{low:.2f}, {high:.2f}]" in comparisons
    table = {level: {"yes": sum(v), "no": len(v) - sum(v)} for level, v in agreed.items()}
    expected = independence(table)
    said = f"Between the levels: {expected.name}, n = {len(agreed['null']) * 2}"
    assert said in comparisons
    assert 'agreement by manipulator (95% Wilson intervals)' in comparisons  # the plot's title


def test_by_name_the_page_says_the_reference_needs_the_study_file(
    frohlich: tuple[str, Path], tmp_path: Path
) -> None:
    text = visible_text(page_of(frohlich, tmp_path, by_name=True))
    assert "give the study file (not its name) to compare with its reference" in text
    assert "No reference distribution" in text
    assert 'manipulator: null, {"agent":"Dmitri"}' in text  # the factors, from the labels


def test_an_existing_file_is_kept_without_force(
    collaboration: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = collaboration
    target = tmp_path / "kept.html"
    target.write_text("mine", encoding="utf-8")
    result = write_report(db, str(path), target)
    assert result.exit_code == 2
    assert "already exists" in result.output and target.read_text() == "mine"


def test_an_unknown_study_is_one_line(collaboration: tuple[str, Path], tmp_path: Path) -> None:
    db, _ = collaboration
    result = write_report(db, "no-such-study", tmp_path / "x.html")
    assert result.exit_code == 2
    assert "no study named 'no-such-study'" in result.output
    assert not (tmp_path / "x.html").exists()


def test_without_scipy_the_page_asks_for_the_analysis_extra(
    frohlich: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # import fails as if not installed
    text = visible_text(page_of(frohlich, tmp_path))
    assert "no test: install maai[analysis] for the tests (scipy)" in text
    assert "agreement rate [95% CI]" in text  # the intervals need no scipy
