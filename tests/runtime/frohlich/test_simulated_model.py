"""The simulated models behind the OpenAI Agents SDK ``Model`` interface, and the simulated
utility agent's extraction."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from agents import Agent, ModelSettings, ModelTracing, RunConfig, Runner
from agents.items import ModelResponse
from pydantic import BaseModel

from maai.domain.calls import ModelRequest
from maai.domain.frohlich.config import AgentConfig, PersonaConfig
from maai.domain.frohlich.config import AgentConfig as _Agent
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated import (
    SimulatedParticipant,
    SimulatedUtility,
    SimulationError,
    build_policy,
    persona_for,
)
from maai.domain.frohlich.simulated.extract import canonical
from maai.runtime.call_context import calling
from maai.runtime.simulated import SimulatedModel, SimulationWiringError


def build_simulated(agent: _Agent | None, *, seed: int) -> SimulatedModel:
    return SimulatedModel(build_policy(agent, seed=seed))


def request(purpose: Purpose, agent: str = "alice", **context: Any) -> ModelRequest:
    return ModelRequest(
        address=f"test/{agent}/{purpose.value}",
        agent=agent,
        purpose=purpose,
        model="simulated",
        system="You are a participant.",
        input="Rank the principles." * 10,
        context=context,
    )


def call(model: Any, req: ModelRequest | None, schema: Any = None) -> ModelResponse:
    async def go() -> ModelResponse:
        response: ModelResponse = await model.get_response(
            system_instructions=req.system if req else None,
            input=req.input if req else "",
            model_settings=ModelSettings(),
            tools=[],
            output_schema=schema,
            handoffs=[],
            tracing=ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
        return response

    if req is None:
        return asyncio.run(go())
    with calling(req):
        return asyncio.run(go())


def text_of(response: ModelResponse) -> str:
    message = response.output[0]
    return "".join(part.text for part in message.content)  # type: ignore[union-attr]


def test_build_simulated() -> None:
    model = build_simulated(AgentConfig(name="alice"), seed=1)
    participant = model.policy
    assert isinstance(participant, SimulatedParticipant)
    assert participant.persona == persona_for(AgentConfig(name="alice"), 1)
    assert isinstance(build_simulated(None, seed=1).policy, SimulatedUtility)
    assert model.model == "simulated"


def test_without_a_request_it_fails_clearly() -> None:
    model = build_simulated(AgentConfig(name="alice"), seed=1)
    with pytest.raises(SimulationWiringError, match="calling"):
        call(model, None)


def test_a_response_is_labelled_as_simulated() -> None:
    model = build_simulated(AgentConfig(name="alice"), seed=1)
    req = request(Purpose.RANKING, step="1.1")
    response = call(model, req)
    text = text_of(response)
    assert text
    assert response.response_id and response.response_id.startswith("sim-")
    assert response.usage.requests == 1
    assert response.usage.input_tokens == len(req.system + req.input) // 4
    assert response.usage.output_tokens == len(text) // 4
    assert response.usage.total_tokens == response.usage.input_tokens + len(text) // 4
    again = call(build_simulated(AgentConfig(name="alice"), seed=1), req)
    assert text_of(again) == text and again.response_id == response.response_id


def test_a_request_for_another_agent_is_refused() -> None:
    model = build_simulated(AgentConfig(name="alice"), seed=1)
    with pytest.raises(SimulationError, match="bob"):
        call(model, request(Purpose.RANKING, agent="bob"))


def test_latency_is_simulated() -> None:
    cfg = AgentConfig(name="alice", persona=PersonaConfig(latency_ms=50))
    started = time.perf_counter()
    call(build_simulated(cfg, seed=1), request(Purpose.POLL))
    assert time.perf_counter() - started >= 0.045


def test_it_runs_behind_the_sdk_runner() -> None:
    model = build_simulated(AgentConfig(name="alice"), seed=1)
    agent = Agent(name="alice", instructions="You are a participant.", model=model)
    req = request(Purpose.POLL, proposer="bob", round=9, rounds=10)

    async def go() -> str:
        with calling(req):
            result = await Runner.run(
                agent, "Vote now?", run_config=RunConfig(tracing_disabled=True)
            )
        return str(result.final_output)

    assert asyncio.run(go()).split(",")[0].split(".")[0] in {"Yes", "No"}


def test_stream_is_not_offered() -> None:
    model = build_simulated(AgentConfig(name="alice"), seed=1)

    async def go() -> None:
        stream = model.stream_response(
            None,
            "",
            ModelSettings(),
            [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
        async for _ in stream:
            pass

    with pytest.raises(NotImplementedError):
        asyncio.run(go())


# --- the simulated utility agent --------------------------------------------------------------


def extract(kind: str, text: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    req = ModelRequest(
        address=f"x/{kind}/extract/1",
        agent="utility",
        purpose=Purpose.EXTRACT,
        model="simulated",
        system="",
        input="",
        output_schema=schema,
        context={"kind": kind, "text": text, "for_agent": "alice"},
    )
    data: dict[str, Any] = json.loads(text_of(call(build_simulated(None, seed=1), req)))
    return data


RANKING = "First (c), then (a), then (d), and (b) last. I am very sure."


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("ranking", RANKING, {"order": ["c", "a", "d", "b"], "certainty": "very_sure"}),
        ("ranking", "I lean toward (c) over (a).", {"order": None, "certainty": None}),
        ("ranking", "1. (b)\n2. (a)\n3. (c)\n4. (d)", {"order": ["b", "a", "c", "d"]}),
        ("choice", "I choose the floor constraint principle.", {"principle": "c", "amount": None}),
        ("choice", "I am torn between (a) and (c).", {"principle": None, "amount": None}),
        ("choice", "Floor constraint, $12k, please.", {"principle": "c", "amount": 12_000}),
        ("ballot", "My vote: (d) with a range of $9,500.", {"principle": "d", "amount": 9_500}),
        ("ballot", "Maximizing the floor income.", {"principle": "a", "amount": None}),
        ("poll", "Hmm, I could go either way.", {"answer": None}),
        ("poll", "No, I think we need more discussion.", {"answer": False}),
    ],
)
def test_extraction_reads_only_what_is_written(
    kind: str, text: str, expected: dict[str, Any]
) -> None:
    values = canonical(kind, text)
    for key, value in expected.items():
        assert values[key] == value
    assert values["readable"] == any(v is not None for v in expected.values())
    assert extract(kind, text) == values  # no schema: the full canonical form


def test_extraction_follows_the_engine_schema() -> None:
    from maai.domain.frohlich import extraction

    for kind, text in [("ranking", RANKING), ("choice", "I choose (a)."), ("poll", "Yes.")]:
        model_cls = extraction.EXTRACTION_FOR_KIND[kind]
        data = extract(kind, text, extraction.schema_for(model_cls)[1])
        read = extraction.parse_extraction(json.dumps(data), model_cls)
        assert not isinstance(read, extraction.ExtractionFailure), read
        assert extraction.judge(read)[0] is True


def test_extraction_follows_the_utility_models() -> None:
    from maai.domain.frohlich import extraction as utility

    cases: list[tuple[str, type[BaseModel], str]] = [
        ("ranking", utility.RankingExtraction, RANKING),
        ("choice", utility.ChoiceExtraction, "My vote: (c) with a floor of $13,000."),
        ("poll", utility.PollExtraction, "Yes, let's hold the vote now."),
    ]
    for kind, model_cls, text in cases:
        _, schema = utility.schema_for(model_cls)
        parsed = utility.parse_extraction(json.dumps(extract(kind, text, schema)), model_cls)
        assert isinstance(parsed, model_cls), parsed
        assert parsed.readable  # type: ignore[attr-defined]
    poll = extract("poll", "Yes!", utility.schema_for(utility.PollExtraction)[1])
    assert poll == {"answer": "yes", "readable": True}


def test_the_utility_agent_answers_extraction_only() -> None:
    with pytest.raises(SimulationError, match="extraction"):
        call(build_simulated(None, seed=1), request(Purpose.POLL))
