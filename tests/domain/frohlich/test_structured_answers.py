"""Frohlich's opt-in ``answers: structured`` (docs/frohlich.md, "Structured answers"): closed
questions are asked for as JSON of a schema recorded in the request; free text stays the
default; both kinds of run verify."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from maai.domain.answers import AnswerAccepted
from maai.domain.events import ModelCallCompleted, ModelCallRequested
from maai.domain.frohlich import extraction
from maai.domain.frohlich.config import parse_config
from maai.domain.frohlich.elicit import parse_structured
from maai.domain.reading import Invalid, Parsed, Undecided
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.verify import verify_events
from tests.e2e.runs import run_in_process, write_config

CLOSED = {"ranking", "choice", "ballot", "poll"}


def _history(tmp_path: Path, edit: Any = None) -> Any:
    config = write_config(tmp_path / "c.yaml", agents=3, rounds=2, edit=edit)
    db = str(tmp_path / "l.db")
    run_id = run_in_process(config, db)
    with EventStore.open(db) as store:
        assert verify_events(store.read(run_id)).ok
        return history_from_stored(run_id, store.read(run_id))


def test_closed_questions_carry_their_schema_and_are_answered_in_json(tmp_path: Path) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["answers"] = "structured"

    history = _history(tmp_path, edit)
    requests = [e.request for _, e in history.of(ModelCallRequested)]
    closed = [r for r in requests if r.purpose in CLOSED]
    assert {"ranking", "choice", "poll"} <= {r.purpose for r in closed}  # a ballot if held
    for request in closed:
        kind = "choice" if request.purpose == "ballot" else request.purpose
        name, schema = extraction.schema_for(extraction.EXTRACTION_FOR_KIND[kind])
        assert (request.schema_name, request.output_schema) == (name, schema)
    assert all(r.output_schema is None for r in requests if r.purpose in {"statement", "memory"})
    answers = {e.address: e.answer.text for _, e in history.of(ModelCallCompleted)}
    closed_addresses = {r.address for r in closed}
    assert all(isinstance(json.loads(answers[a]), dict) for a in closed_addresses)
    accepted = [e for _, e in history.of(AnswerAccepted) if e.address in closed_addresses]
    assert accepted and all(e.source == "parser" for e in accepted)


def test_free_text_stays_the_default(tmp_path: Path) -> None:
    history = _history(tmp_path)
    assert all(
        e.request.output_schema is None
        for _, e in history.of(ModelCallRequested)
        if e.request.purpose in CLOSED
    )
    data = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert "answers" not in parse_config(data).model_dump(mode="json")


def test_a_server_without_json_schema_gets_the_schema_in_the_prompt(tmp_path: Path) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["answers"] = "structured"
        data["agents"][0]["provider"] = {"json_schema": False}

    history = _history(tmp_path, edit)
    name = yaml.safe_load((tmp_path / "c.yaml").read_text())["agents"][0]["name"]
    mine = [
        e.request
        for _, e in history.of(ModelCallRequested)
        if e.request.agent == name and e.request.purpose in CLOSED
    ]
    assert mine and all(r.output_schema is None for r in mine)
    assert all('"readable"' in r.input for r in mine)


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ('{"principle": "a", "amount": null, "readable": true}', "choice", Parsed),
        ('{"principle": "c", "amount": null, "readable": true}', "ballot", Invalid),  # no amount
        ('{"answer": "yes", "readable": true}', "poll", Parsed),
        ("I choose (a).", "choice", Undecided),  # not JSON: the utility agent reads it
        ('{"principle": "z", "amount": null, "readable": true}', "choice", Undecided),
    ],
)
def test_structured_answers_are_judged_by_the_extraction_rules(
    text: str, kind: str, expected: type
) -> None:
    assert isinstance(parse_structured(kind, text), expected)
