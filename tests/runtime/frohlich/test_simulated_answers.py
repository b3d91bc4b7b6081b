"""What the simulated participant writes: deterministic, non-empty, in the documented formats,
and readable by the deterministic parsers when no mistake was injected."""

from __future__ import annotations

import re
from typing import Any

import pytest

from maai.domain.calls import ModelRequest
from maai.domain.frohlich.config import BASE_DISTRIBUTIONS, AgentConfig, PersonaConfig
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated import Persona, persona_for
from maai.domain.frohlich.simulated.phrases_en import EN
from maai.domain.frohlich.simulated.policy import SimulationError, answer
from maai.domain.frohlich.types import Principle

SEED = 11
TABLE = [list(d) for d in BASE_DISTRIBUTIONS]
CERTAINTY = r"Certainty: (very unsure|unsure|no opinion|sure|very sure)$"
RANKING_LINE = re.compile(r"^([1-4])\. \(([a-d])\) ", re.M)
CHOICE = re.compile(
    r"(?:I choose|My choice is|I'll go with) \(([a-d])\) [a-z ]+?(?: of \$(\d{1,3}(?:,\d{3})*))?\."
)
BALLOT = re.compile(
    r"(?:My vote:|I vote for) \(([a-d])\) [a-z ]+?(?: of \$(\d{1,3}(?:,\d{3})*))?\."
)
POLL = re.compile(r"^(Yes|No)\b")

HISTORY = [
    {
        "kind": "statement",
        "speaker": "bob",
        "round": 1,
        "text": "I support (a) maximizing the floor income. Nobody should be left behind.",
    },
    {
        "kind": "statement",
        "speaker": "carol",
        "round": 1,
        "text": "I support (c) maximizing the average income with a floor constraint of $13,000.",
    },
]

CONTEXTS: dict[Purpose, dict[str, Any]] = {
    Purpose.RANKING: {"step": "1.1", "attempt": 1, "feedback": None},
    Purpose.CHOICE: {
        "step": "1.3",
        "round": 1,
        "attempt": 1,
        "feedback": None,
        "distributions": TABLE,
        "floors": [min(d) for d in TABLE],
        "ranges": [max(d) - min(d) for d in TABLE],
        "averages": [20_750.0, 19_150.0, 19_850.0, 18_050.0],
    },
    Purpose.REASONING: {"step": "2.1", "round": 2, "rounds": 10, "history": HISTORY},
    Purpose.STATEMENT: {
        "step": "2.1",
        "round": 2,
        "rounds": 10,
        "history": HISTORY,
        "reasoning": None,
    },
    Purpose.POLL: {"step": "2.1", "round": 2, "rounds": 10, "proposer": "bob", "history": HISTORY},
    Purpose.BALLOT: {"step": "2.1", "round": 2, "rounds": 10, "history": HISTORY},
    Purpose.MEMORY: {
        "step": "1.3",
        "limit_words": 200,
        "memory": "[1.1] I ranked (c) > (a) > (d) > (b); certainty: sure.",
        "outcome": "You were assigned the medium class: $24,000, a payoff of $2.40.",
        "last_output": "I choose (c) maximizing the average income with a floor constraint "
        "of $13,000.",
    },
    Purpose.MEMORY_SHORTEN: {
        "step": "1.3",
        "limit_words": 12,
        "memory": "[1.1] I ranked (c) first; certainty: sure.\n"
        "[1.2] I ranked (c) first again; certainty: very sure.",
    },
}


def request(
    agent: str, purpose: Purpose, address: str | None = None, **context: Any
) -> ModelRequest:
    return ModelRequest(
        address=address or f"test/{agent}/{purpose.value}",
        agent=agent,
        purpose=purpose,
        model="simulated",
        system="system",
        input="input",
        context={**CONTEXTS.get(purpose, {}), **context},
    )


def careful(name: str, **persona: Any) -> Persona:
    """A persona that makes no mistakes, so every answer is well formed."""
    return persona_for(AgentConfig(name=name, persona=PersonaConfig(error_rate=0, **persona)), SEED)


def say(persona: Persona, purpose: Purpose, address: str | None = None, **context: Any) -> str:
    return answer(EN, persona, SEED, request(persona.name, purpose, address, **context))


@pytest.mark.parametrize("purpose", [p for p in Purpose if p is not Purpose.EXTRACT])
def test_every_purpose_is_answered_deterministically(purpose: Purpose) -> None:
    p = persona_for(AgentConfig(name="alice"), SEED)
    first = say(p, purpose)
    assert first.strip()
    assert say(p, purpose) == first
    texts = {say(p, purpose, f"test/alice/{purpose.value}/{i}") for i in range(12)}
    if purpose != Purpose.MEMORY_SHORTEN:  # shortening a fixed text has one right answer
        assert len(texts) > 1


def test_extraction_is_refused_by_a_participant() -> None:
    p = careful("alice")
    with pytest.raises(SimulationError, match="utility agent"):
        say(p, Purpose.EXTRACT, kind="poll", text="Yes")


def test_ranking_format() -> None:
    for i in range(40):
        p = careful(f"agent{i}")
        text = say(p, Purpose.RANKING)
        lines = RANKING_LINE.findall(text)
        assert [n for n, _ in lines] == ["1", "2", "3", "4"], text
        assert {letter for _, letter in lines} == {"a", "b", "c", "d"}
        assert lines[0][1] == p.principle.value
        assert re.search(CERTAINTY, text, re.M), text


def test_choice_format_and_amount_fits_the_table() -> None:
    for i in range(40):
        p = careful(f"agent{i}", certainty="very_sure")
        text = say(p, Purpose.CHOICE)
        m = CHOICE.search(text)
        assert m, text
        principle = Principle(m.group(1))
        assert (m.group(2) is not None) == principle.needs_amount, text
        if principle is p.principle and principle.needs_amount:
            # On the base table the preferred amount is named as it is.
            assert int(m.group(2).replace(",", "")) == p.amount_for(principle)


def test_choice_amount_scales_with_the_table() -> None:
    p = careful("zoe", preferred_principle="c", preferred_amount=13_000, certainty="very_sure")
    doubled = [[2 * x for x in d] for d in TABLE]
    texts = [
        say(p, Purpose.CHOICE, f"a/{i}", distributions=doubled, floors=None, ranges=None)
        for i in range(10)
    ]
    amounts = {m.group(2) for t in texts if (m := CHOICE.search(t)) and m.group(1) == "c"}
    assert amounts == {"26,000"}


def test_phase2_answers_have_their_formats() -> None:
    for i in range(30):
        p = careful(f"agent{i}")
        statement = say(p, Purpose.STATEMENT)
        assert re.search(r"\(([a-d])\)", statement.split(".")[0]), statement
        assert "propose" not in statement.replace("I PROPOSE A VOTE", "").lower()
        assert POLL.match(say(p, Purpose.POLL)), say(p, Purpose.POLL)
        m = BALLOT.search(say(p, Purpose.BALLOT))
        assert m and (m.group(2) is not None) == Principle(m.group(1)).needs_amount


def test_statement_names_the_previous_speakers() -> None:
    p = careful("alice", verbosity=1.0)
    text = say(p, Purpose.STATEMENT)
    assert "bob" in text and "carol" in text


def test_memory_appends_an_entry_within_the_limit() -> None:
    p = careful("alice")
    text = say(p, Purpose.MEMORY)
    assert text.startswith("[1.1] I ranked")
    assert "[1.3] I chose (c) $13,000." in text and "$2.40" in text
    assert len(text.split()) <= 200


def test_memory_condenses_a_discussion_transcript() -> None:
    p = careful("alice")
    outcome = (
        "What happened in the discussion during round 2:\n"
        "[Round 2] bob: I support (a) maximizing the floor income. We are close to agreement.\n"
        "[Round 2] carol: I support (c) with a floor of $13,000.\n"
        "[Round 2] Should the group vote now? bob: yes, carol: no. Not everyone agreed."
    )
    last = "I still support (c) maximizing the average income with a floor constraint of $13,000."
    text = say(p, Purpose.MEMORY, step="2.1", outcome=outcome, last_output=last, round=2)
    entry = text.splitlines()[-1]
    assert entry.startswith("[2.1 round 2] I argued for (c) $13,000.")
    assert "Positions heard: bob (a); carol (c) $13,000." in entry
    assert "close to agreement" not in entry  # statements are condensed, not copied


def test_memory_keeps_the_most_recent_entries_when_full() -> None:
    p = careful("alice")
    memory = "\n".join(f"[1.3 round {i}] I chose (c) $13,000; earned $2.40." for i in range(50))
    text = say(p, Purpose.MEMORY, memory=memory, limit_words=60)
    assert len(text.split()) <= 60
    assert "[1.3 round 49]" in text and "[1.3 round 0]" not in text


def test_memory_shorten_fits_the_limit() -> None:
    p = careful("alice")
    text = say(p, Purpose.MEMORY_SHORTEN)
    assert len(text.split()) <= 12
    assert text.startswith("[1.2]")


def test_missing_context_keys_are_tolerated() -> None:
    p = persona_for(AgentConfig(name="alice"), SEED)
    for purpose in (p for p in Purpose if p is not Purpose.EXTRACT):
        req = ModelRequest(
            address="bare", agent="alice", purpose=purpose, model="simulated", system="", input=""
        )
        assert answer(EN, p, SEED, req).strip() or purpose == Purpose.MEMORY_SHORTEN


# --- the deterministic parsers read every well-formed answer ----------------------------------


def test_parsers_read_well_formed_answers() -> None:
    from maai.domain.frohlich import parsing

    for i in range(30):
        p = careful(f"agent{i}")
        ranking = parsing.parse_ranking(say(p, Purpose.RANKING))
        assert isinstance(ranking, parsing.Parsed), ranking
        assert ranking.value.order[0] is p.principle
        pairs = ((Purpose.CHOICE, parsing.parse_choice), (Purpose.BALLOT, parsing.parse_ballot))
        for purpose, parse in pairs:
            text = say(p, purpose)
            parsed = parse(text)
            assert isinstance(parsed, parsing.Parsed), (text, parsed)
            assert BALLOT.search(text) or CHOICE.search(text)
        poll = say(p, Purpose.POLL)
        parsed_poll = parsing.parse_poll_answer(poll)
        assert isinstance(parsed_poll, parsing.Parsed) and parsed_poll.value is poll.startswith("Y")
        statement = say(p, Purpose.STATEMENT, round=10)
        proposes = statement.endswith("\nI PROPOSE A VOTE")
        assert parsing.parse_vote_proposal(statement) is proposes
