"""``maai view`` compares a fork with its parent in a real browser (docs/view.md, docs/forks.md):
the parent's page links its fork, the link opens the two side by side, the prefix they share
is one row, and the rest is aligned from the fork point. Screenshot in ``test-artifacts/``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.browser.test_view_browser import artifacts, page, viewer  # noqa: F401 -- fixtures


def test_a_fork_is_compared_with_its_parent_from_the_fork_point(
    viewer: tuple[str, Path],  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    base, db = viewer
    forked = subprocess.run(
        [sys.executable, "-m", "maai", "fork", "golden-run", "--at", "round:2", "--same-draws"]
        + ["--set", "agents.alice.persona.preferred_principle=a", "--db", str(db), "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert forked.returncode == 0, forked.stderr
    page.goto(base + "/runs/golden-run", wait_until="load")
    # The lineage is a part loaded after the first screen: wait for it, as a reader does.
    page.wait_for_selector("#lineage-children a.child", timeout=30_000)
    child = page.locator("#lineage-children a.child")
    assert child.count() == 1
    child_id = child.text_content()
    page.locator("#lineage-children a", has_text="compare").click()
    page.wait_for_selector("table.compare")
    assert page.url.endswith(f"/compare?a=golden-run&b={child_id}")
    assert "a fork of golden-run at round:2" in (page.locator("#fork-note").text_content() or "")
    rows = page.locator("table.compare tbody tr")
    assert "Events 1 to 209:" in (rows.nth(0).text_content() or "")  # round:2 is after 209
    assert "run.forked" in (rows.nth(1).text_content() or "")
    # Then step by step: the parent's event 210 beside the fork's first step of its own (after
    # run.forked and its signature), the same slot.
    first = page.locator("table.compare tbody tr.same").first.locator("td")
    left, right = (int(first.nth(n).locator("a").first.text_content() or 0) for n in (0, 1))
    assert left == 210 and 211 < right <= 213
    assert page.locator("table.compare tr.differs").count() > 0  # alice's change shows
    assert page.locator("table.compare tr.same").count() > 10
    page.screenshot(path=str(artifacts() / "view-compare-fork.png"), full_page=False)
    page.locator("table.compare thead a").nth(1).click()  # the fork's own page
    page.wait_for_selector("#lineage-parent")
    assert page.locator("#lineage-parent a.parent").text_content() == "golden-run"
    assert page.errors == []  # type: ignore[attr-defined]
