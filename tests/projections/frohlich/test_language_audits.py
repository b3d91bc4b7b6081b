"""The audits read Spanish and Mandarin prompts (docs/frohlich.md, Languages): a clean run in
each language passes, and a prompt that tells a participant something false, or another
participant's balance, is caught in that language too."""

from __future__ import annotations

import pytest

from maai.domain.events import Event, ModelCallRequested
from maai.domain.frohlich import render
from maai.domain.frohlich.events import PayoffAwarded
from maai.projections.frohlich.leaks import audit_leaks
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.history import history_from_events
from tests.support.languages import simulated_events

CONFIGS = {"es": "frohlich_es.yaml", "zh": "frohlich_zh.yaml"}


def edited(events: tuple[Event, ...], address: str, old: str, new: str) -> list[Event]:
    """The run with one recorded prompt saying something else in its last ``old`` (as a code
    bug would)."""
    out = list(events)
    for i, event in enumerate(out):
        if isinstance(event, ModelCallRequested) and event.request.address == address:
            assert old in event.request.input, (address, old)
            at = event.request.input.rindex(old)  # the last: the memory may quote older
            text = event.request.input[:at] + new + event.request.input[at + len(old) :]
            request = event.request.model_copy(update={"input": text})
            out[i] = event.model_copy(
                update={"request": request, "request_hash": request.request_hash()}
            )
            return out
    raise AssertionError(f"no request {address}")


def broken_rules(events: list[Event]) -> set[str]:
    return {v.rule for v in audit_protocol(history_from_events(events)).violations}


@pytest.mark.parametrize("language", ["es", "zh"])
def test_a_clean_run_passes_every_audit(language: str) -> None:
    history = history_from_events(list(simulated_events(CONFIGS[language])))
    report = audit_protocol(history)
    assert report.ok, [v.describe() for v in report.violations][:5]
    leaks = audit_leaks(history)
    assert leaks.ok and leaks.prompts_checked > 200


TAMPERS: dict[str, list[tuple[str, str, str, str]]] = {  # rule, address, old, new
    "es": [
        ("prompt_round_table", "p1/Bob/r2/choice/1", "ronda 2 de 4", "ronda 3 de 4"),
        ("prompt_round_table", "p1/Bob/r2/choice/1", "| Baja | $", "| Baja | $1"),
        ("prompt_round_outcome", "p1/Bob/r2/memory", "tu ingreso es $", "tu ingreso es $1"),
        (
            "prompt_memory_and_balance",
            "p1/Bob/r3/choice/1",
            "Saldo bancario: $",
            "Saldo bancario: $9",
        ),
        (
            "prompt_explanation",
            "p1/Bob/s1.2/ranking/1",
            "(b) elige la Distribución 1.",
            "(b) elige la Distribución 4.",
        ),
    ],
    "zh": [
        ("prompt_round_table", "p1/Bob/r2/choice/1", "第 2 轮，共 4 轮", "第 3 轮，共 4 轮"),
        ("prompt_round_table", "p1/Bob/r2/choice/1", "| 低收入 | ", "| 低收入 | 1"),
        ("prompt_round_outcome", "p1/Bob/r2/memory", "你的收入是 ", "你的收入是 1"),
        ("prompt_memory_and_balance", "p1/Bob/r3/choice/1", "银行余额：", "银行余额：9"),
        ("prompt_explanation", "p1/Bob/s1.2/ranking/1", "(b) 选择分配 1。", "(b) 选择分配 4。"),
    ],
}


@pytest.mark.parametrize(
    ("language", "rule", "address", "old", "new"),
    [(lang, *tamper) for lang, tampers in TAMPERS.items() for tamper in tampers],
)
def test_a_false_prompt_is_caught_in_its_language(
    language: str, rule: str, address: str, old: str, new: str
) -> None:
    events = edited(simulated_events(CONFIGS[language]), address, old, new)
    assert rule in broken_rules(events)


@pytest.mark.parametrize("language", ["es", "zh"])
def test_another_agents_balance_in_a_prompt_is_caught_in_its_language(language: str) -> None:
    events = simulated_events(CONFIGS[language])
    final: dict[str, int] = {}
    for event in events:
        if isinstance(event, PayoffAwarded):
            final[event.agent] = event.balance_cents
    assert final["Alice"] != final["Bob"]
    label = {"es": "Saldo bancario: ", "zh": "银行余额："}[language]

    def line(agent: str) -> str:
        return label + render.cents(final[agent], language)

    leaky = edited(events, "p2/Alice/s2.3/ranking/1", line("Alice"), line("Bob"))
    kinds = {
        (leak.agent, leak.kind, leak.owner)
        for leak in audit_leaks(history_from_events(leaky)).leaks
    }
    assert ("Alice", "bank balance", "Bob") in kinds
