"""Frohlich's history window (docs/frohlich.md, "History window"): Phase-2 prompts show the
last K rounds word for word and say how many earlier rounds they leave out."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from maai.domain.config import ConfigError
from maai.domain.events import ModelCallRequested
from maai.domain.frohlich.config import parse_config
from maai.domain.frohlich.prompts import word
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.verify import verify_events
from tests.e2e.runs import run_in_process, write_config

OMITTED = {
    "en": "earlier discussion rounds are omitted here",
    "es": "rondas anteriores de la discusión",
    "zh": "此处省略了之前的",
}


def _statements(db: str, run_id: str) -> list[ModelCallRequested]:
    with EventStore.open(db) as store:
        history = history_from_stored(run_id, store.read(run_id))
        assert verify_events(store.read(run_id)).ok
    return [e for _, e in history.of(ModelCallRequested) if e.request.purpose == "statement"]


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_prompts_show_the_last_rounds_and_name_the_omitted(tmp_path: Path, language: str) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["history"] = {"window_rounds": 1}
        data["language"] = language
        for agent in data["agents"]:
            agent.pop("language", None)

    config = write_config(tmp_path / "c.yaml", agents=3, rounds=5, edit=edit)
    db = str(tmp_path / "l.db")
    run_id = run_in_process(config, db)
    statements = _statements(db, run_id)
    by_round: dict[int, list[str]] = {}
    for event in statements:
        round_ = int(re.search(r"/r(\d+)/", event.request.address).group(1))  # type: ignore[union-attr]
        by_round.setdefault(round_, []).append(event.request.input)
    assert max(by_round) >= 3, "the discussion ended before a window could leave rounds out"
    marker = {"en": "[Round {}]", "es": "[Ronda {}]", "zh": "[第 {} 轮]"}[language]
    for round_, inputs in by_round.items():
        for text in inputs:
            omitted = max(round_ - 2, 0)
            assert (OMITTED[language] in text) == (omitted > 0)
            if omitted:
                assert word(language, "history_omitted", omitted=omitted) in text
            for earlier in range(1, round_ - 1):
                assert marker.format(earlier) not in text  # left out
            if round_ > 1:
                assert marker.format(round_ - 1) in text  # the previous round, word for word


def test_the_default_shows_everything_and_stores_no_history_key(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.yaml", agents=3, rounds=4)
    assert "history" not in parse_config(
        __import__("yaml").safe_load(config.read_text())
    ).model_dump(mode="json")
    db = str(tmp_path / "l.db")
    run_id = run_in_process(config, db)
    last = _statements(db, run_id)[-1].request.input
    assert OMITTED["en"] not in last and "[Round 1]" in last


@pytest.mark.parametrize("value", [0, -2, 10_000])
def test_a_bad_window_is_one_line(value: int) -> None:
    data = {
        "experiment": "frohlich",
        "agents": [{"name": "A"}, {"name": "B"}],
        "history": {"window_rounds": value},
    }
    with pytest.raises(ConfigError) as caught:
        parse_config(data, "c.yaml")
    (line,) = str(caught.value).splitlines()
    assert line.startswith("c.yaml: history.window_rounds: ")
