"""The language audit (``prompt_language``, docs/frohlich.md §8): a prompt to an agent of
language L holds no template sentence of another language once what anyone said, names and
personas are set aside. It passes the packaged runs in every language, the multilingual one
included (its agents hear each other's words as spoken), and fails on an English sentence
planted in a Spanish or Mandarin prompt and on an agent given the English template."""

from __future__ import annotations

from typing import Any

import pytest

from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich import prompts
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.frohlich.protocol_base import Audit
from maai.projections.frohlich.protocol_language import (
    ForeignSentences,
    language_violations,
    packaged_templates,
)
from maai.projections.history import history_from_events
from tests.support.languages import drive, load, simulated_events

PLANTED = "Answer Yes or No, then give your reason in one sentence."


def language_rule(events: list[Event] | tuple[Event, ...]) -> list[Any]:
    return [v for v in audit_protocol(history_from_events(list(events))).violations]


@pytest.mark.parametrize(
    "name", ["default.yaml", "frohlich_es.yaml", "frohlich_zh.yaml", "frohlich_multilingual.yaml"]
)
def test_the_packaged_runs_pass(name: str) -> None:
    assert language_rule(simulated_events(name)) == []


def planted(events: tuple[Event, ...], address_part: str, sentence: str) -> list[Event]:
    """The run with ``sentence`` added to the first prompt whose address has
    ``address_part`` (as a code bug would write it)."""
    out = list(events)
    for i, event in enumerate(out):
        if isinstance(event, ModelCallRequested) and address_part in event.request.address:
            request = event.request.model_copy(
                update={"input": event.request.input + "\n\n" + sentence}
            )
            out[i] = event.model_copy(
                update={"request": request, "request_hash": request.request_hash()}
            )
            return out
    raise AssertionError(f"no request {address_part}")


def language_findings(events: list[Event]) -> list[str]:
    # The planted copy's request hash no longer matches its answer's: calls_paired sees that.
    return [v.detail for v in language_rule(events) if v.rule == "prompt_language"]


@pytest.mark.parametrize("name", ["frohlich_es.yaml", "frohlich_zh.yaml"])
def test_an_english_sentence_planted_in_a_prompt_is_caught(name: str) -> None:
    found = language_findings(planted(simulated_events(name), "/poll", PLANTED))
    assert len(found) == 1 and PLANTED in found[0]


def test_an_english_sentence_in_the_multilingual_runs_spanish_prompt_is_caught() -> None:
    events = simulated_events("frohlich_multilingual.yaml")
    found = language_findings(planted(events, "p1/Alice/s1.1", PLANTED))
    assert len(found) == 1 and PLANTED in found[0]


@pytest.mark.parametrize("name", ["frohlich_es.yaml", "frohlich_multilingual.yaml"])
def test_an_agent_given_the_english_template_is_caught(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bug: the poll prompt falls back to English whatever the reader's language."""
    real = prompts.PROMPTS.render

    def english_poll(template: str, language: str = "en", /, **values: object) -> str:
        return real(template, "en" if template == "poll" else language, **values)

    monkeypatch.setattr(prompts.PROMPTS, "render", english_poll)
    _, events = drive(load(name))
    found = language_rule(events)
    assert found and {v.rule for v in found} == {"prompt_language"}
    assert all("/poll" in v.detail for v in found)


def test_the_rule_takes_the_templates_as_data() -> None:
    """Given templates of its own, the rule judges by them: a sentence no template holds is
    never flagged, one a foreign template holds is."""
    events = planted(simulated_events("frohlich_es.yaml"), "/poll", "A sentence of our own here.")
    history = history_from_events(events)
    assert history.config is not None
    audit = Audit(history, history.config)
    templates = {k: list(v) for k, v in packaged_templates().items()}
    for data, flagged in (
        (templates, False),
        ({**templates, "en": ["A sentence of our own here."]}, True),
    ):
        check = language_violations(audit, ForeignSentences(data))
        found = [v for entry in history.stream() for v in check(entry)]
        assert bool(found) is flagged
