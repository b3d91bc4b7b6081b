"""``maai view`` and forks (docs/forks.md, docs/view.md): a run's page names its parent with
the fork point and its children, each linked; comparing a fork with its parent shows the
prefix they share as one row and aligns the rest from the fork point."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from maai.domain.frohlich.events import StatementMade
from maai.runtime.view.app import create_app
from tests.projections.frohlich.recording import golden_history
from tests.view.ledgers import write_fork, write_run


def fork_point() -> int:
    """The seq after which the golden run's first statement comes."""
    entries = golden_history().entries
    return next(e.seq for e in entries if isinstance(e.event, StatementMade)) - 1


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    db: Path = tmp_path_factory.mktemp("lineage") / "ledger.db"
    write_run(db, "parent-run")
    write_run(db, "other-run", upto=30)
    write_fork(db, "parent-run", "child-run", fork_point())
    write_fork(db, "parent-run", "second-child", fork_point() + 5, point="seq:x")
    return TestClient(create_app(str(db)))


def test_a_fork_s_page_links_its_parent_at_the_fork_point(client: TestClient) -> None:
    at = fork_point()
    page = client.get("/runs/child-run").text
    assert 'data-part="/runs/child-run/part/lineage?head=' in page  # loaded after the first screen
    html = client.get("/runs/child-run/part/lineage").text
    parent = re.search(r'<li id="lineage-parent">(.*?)</li>', html, re.S)
    assert parent, html[:3000]
    assert 'class="parent" href="/runs/parent-run"' in parent.group(1)
    assert "<code>round:2</code>" in parent.group(1)
    assert f'href="/runs/parent-run#e{at}"' in parent.group(1)  # the parent's event there
    assert 'href="/compare?a=parent-run&amp;b=child-run"' in parent.group(1)
    assert 'id="lineage-children"' not in html


def test_a_parent_s_page_lists_its_children(client: TestClient) -> None:
    html = client.get("/runs/parent-run/part/lineage").text
    children = re.findall(r'class="child" href="/runs/([^"]+)"', html)
    assert children == ["child-run", "second-child"]  # by fork point
    assert 'id="lineage-parent"' not in html
    none = client.get("/runs/other-run/part/lineage").text  # no fork, no section
    assert 'id="lineage"' not in none and "no-lineage" in none


def rows(html: str) -> list[tuple[str, str]]:
    """(row class, the row's text) of the compare table's body."""
    body = html.split("<tbody>", 1)[1]
    found = re.findall(r'<tr class="(\w+)"[^>]*>(.*?)</tr>', body, re.S)
    return [(css, re.sub(r"<[^>]+>", " ", text)) for css, text in found]


@pytest.mark.parametrize("order", ["parent first", "fork first"])
def test_a_fork_and_its_parent_are_aligned_from_the_fork_point(
    client: TestClient, order: str
) -> None:
    at = fork_point()
    a, b = ("parent-run", "child-run") if order == "parent first" else ("child-run", "parent-run")
    html = client.get(f"/compare?a={a}&b={b}").text
    assert 'id="fork-note"' in html and "<code>round:2</code>" in html
    found = rows(html)
    assert found[0][0] == "shared" and f"Events 1 to {at}:" in found[0][1]
    # Then run.forked, the fork's alone; then each step of the parent beside the fork's.
    assert found[1][0] == "only" and "run.forked" in found[1][1]
    paired = [text for css, text in found[2:] if css != "only"]
    assert paired and {str(at + 1), str(at + 2)} <= set(paired[0].split())
    aligned = html.split('id="shared-prefix"', 1)[1].split("</tr>", 1)[1]
    parent_seqs = [int(s) for s in re.findall(r"/runs/parent-run#e(\d+)", aligned)]
    child_seqs = [int(s) for s in re.findall(r"/runs/child-run#e(\d+)", aligned)]
    assert min(parent_seqs) == at + 1 and min(child_seqs) == at + 1  # nothing shared repeated
    # The statements differ (the fork's are changed), the other steps are the same.
    statements = [css for css, text in found[2:] if "statement.made" in text]
    assert statements and set(statements) == {"differs"}
    assert any(css == "same" for css, _ in found[2:])


def test_two_runs_that_are_no_forks_of_each_other_share_no_prefix(client: TestClient) -> None:
    html = client.get("/compare?a=child-run&b=second-child").text  # siblings
    assert 'id="fork-note"' not in html and 'id="shared-prefix"' not in html
    assert rows(html)[0][0] == "same"  # aligned from their first event
