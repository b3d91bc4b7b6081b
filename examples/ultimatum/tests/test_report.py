"""The game's own sections of ``maai report`` (``maai_ultimatum/views/report.py``), found by
maai's generic page through the views alone."""

from __future__ import annotations

import re
from pathlib import Path

from maai.projections.history import history_from_events
from maai.projections.report import run_report
from maai.testing.contract import contract_signing_key  # noqa: F401  (signs the run's head)
from maai.testing.runs import record

from maai_ultimatum.events import OfferMade


def test_the_report_has_the_games_sections(tmp_path: Path) -> None:
    recorded = record("ultimatum", tmp_path)
    events = recorded.events()
    page = run_report(history_from_events(events, "game", "completed", recorded.experiment))
    assert re.findall(r"<h2>([^<]+)</h2>", page) == ["The run", "The game", "Points"]
    game = page[page.index("<h2>The game") : page.index("<h2>Points")]
    (offer,) = [e for e in events if isinstance(e, OfferMade)]
    assert "<dt>proposer</dt><dd>Ada</dd>" in game and "<dt>responder</dt><dd>Ben</dd>" in game
    assert f"<dt>offer</dt><dd>{offer.amount} points</dd>" in game
    # Cut before the offer: the game says so, and there are no points yet.
    started = run_report(history_from_events(events[:1], "new", "running", recorded.experiment))
    assert "No offer was made yet." in started and "<h2>Points</h2>" not in started
