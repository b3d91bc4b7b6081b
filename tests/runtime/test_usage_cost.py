"""Usage as providers report it (cached input, reasoning) and what calls cost
(docs/providers.md, "Usage and cost"). Everything goes to the tests' loopback server.
Frohlich's config serves: usage is read from the answers and priced from the config's
``prices``, whatever the experiment."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.canonical import canonical_json
from maai.cli.app import app
from maai.domain.calls import ModelAnswer, Usage
from maai.domain.config import ConfigError, Price, validate_config
from maai.domain.costs import Usage as Tokens
from maai.domain.costs import tokens_cost_usd
from maai.domain.events import ModelCallCompleted
from maai.domain.frohlich.config import FrohlichConfig
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.runs import load_config, start_run
from maai.runtime.study import recorded_usage
from maai.runtime.verify import verify_events
from tests.e2e.fake_model import MODEL, FakeModel, serve_agent
from tests.e2e.runs import write_config
from tests.runtime.loopback_http import (
    LoopbackServer,
    Received,
    Reply,
    chat_completion,
    loopback_server,
)
from tests.support.provider_calls import Recorder, make_request, responses_body, run_call


def _chat_with_usage(usage: Any) -> dict[str, Any]:
    body = chat_completion("I choose (a).")
    body["usage"] = usage
    return body


def test_chat_completions_cached_and_reasoning_tokens_are_recorded(server: LoopbackServer) -> None:
    server.script(
        Reply(
            body=_chat_with_usage(
                {
                    "prompt_tokens": 2048,
                    "completion_tokens": 300,
                    "total_tokens": 2348,
                    "prompt_tokens_details": {"cached_tokens": 1536},
                    "completion_tokens_details": {"reasoning_tokens": 256},
                }
            )
        )
    )
    answer = run_call(server, make_request(), Recorder())
    assert answer.usage == Usage(
        input_tokens=2048, output_tokens=300, cached_input_tokens=1536, reasoning_tokens=256
    )
    # The provider's own usage is kept with the answer, and the answer round-trips.
    assert answer.raw["raw_usage"]["prompt_tokens_details"]["cached_tokens"] == 1536
    stored = json.loads(canonical_json(answer.model_dump(mode="json")))
    assert ModelAnswer.model_validate(stored) == answer


def test_deepseek_cache_hits_are_read_as_cached_input(server: LoopbackServer) -> None:
    server.script(
        Reply(
            body=_chat_with_usage(
                {
                    "prompt_tokens": 1000,
                    "completion_tokens": 10,
                    "total_tokens": 1010,
                    "prompt_cache_hit_tokens": 768,
                    "prompt_cache_miss_tokens": 232,
                }
            )
        )
    )
    answer = run_call(server, make_request(), Recorder())
    assert (answer.usage.input_tokens, answer.usage.cached_input_tokens) == (1000, 768)


def test_responses_api_cached_and_reasoning_tokens(server: LoopbackServer) -> None:
    body = responses_body(
        "(d)", model="o4-mini", input_tokens=4000, output_tokens=900, cached=3072, reasoning=640
    )
    server.script(Reply(body=body))
    env = {"OPENAI_API_KEY": "sk-openai-test-0000000000", "OPENAI_BASE_URL": server.base_url}
    answer = run_call(
        server, make_request(model="openai:o4-mini"), Recorder(), provider=None, env=env
    )
    assert answer.usage == Usage(
        input_tokens=4000, output_tokens=900, cached_input_tokens=3072, reasoning_tokens=640
    )


@pytest.mark.parametrize(
    ("usage", "unreadable", "input_tokens"),
    [
        ({"prompt_tokens": "many", "completion_tokens": 3, "total_tokens": 3}, "prompt_tokens", 0),
        (
            {
                "prompt_tokens": 12,
                "completion_tokens": 3,
                "total_tokens": 15,
                "prompt_tokens_details": {"cached_tokens": "x"},
            },
            "prompt_tokens_details.cached_tokens",
            12,
        ),
    ],
)
def test_usage_of_the_wrong_type_keeps_the_call_and_names_the_field(
    server: LoopbackServer, usage: dict[str, Any], unreadable: str, input_tokens: int
) -> None:
    server.script(Reply(body=_chat_with_usage(usage)))
    recorder = Recorder()
    answer = run_call(server, make_request(), recorder)
    assert answer.text == "I choose (a)." and recorder.failures == []
    assert answer.usage.unreadable == (unreadable,)
    assert answer.usage.input_tokens == input_tokens
    first, _, rest = unreadable.partition(".")
    kept = answer.raw["raw_usage"][first]
    assert (kept[rest] if rest else kept) == (usage[first][rest] if rest else usage[first])


def test_a_usage_recorded_before_the_details_reads_and_re_encodes_as_stored() -> None:
    old = {"requests": 1, "input_tokens": 10, "output_tokens": 2}
    usage = Usage.model_validate(old)
    assert (usage.cached_input_tokens, usage.reasoning_tokens, usage.unreadable) == (0, 0, ())
    assert usage.model_dump(mode="json") == old


def test_cached_input_is_priced_at_its_own_rate_or_else_as_input() -> None:
    with_cache = Price(input=2.0, cached_input=0.5, output=8.0)
    without = Price(input=2.0, output=8.0)
    tokens = {"input_tokens": 1_000_000, "cached_input_tokens": 600_000, "output_tokens": 100_000}
    assert tokens_cost_usd(with_cache, **tokens) == pytest.approx(0.4 * 2 + 0.6 * 0.5 + 0.1 * 8)
    assert tokens_cost_usd(without, **tokens) == pytest.approx(1.0 * 2 + 0.1 * 8)
    # A run's cost is its calls' costs summed: the one formula, applied to the totals.
    run = Tokens()
    calls = [(2000, 200, 1024, 50), (3000, 100, 2048, 0), (500, 500, 0, 400)]
    for input_tokens, output_tokens, cached, reasoning in calls:
        run.add("m", input_tokens, output_tokens, cached, reasoning)
    by_call = sum(
        tokens_cost_usd(with_cache, input_tokens=i, cached_input_tokens=c, output_tokens=o)
        for i, o, c, _ in calls
    )
    assert run.cost_usd({"m": with_cache}) == pytest.approx(by_call)


@pytest.mark.parametrize("value", [-0.5, 1e9, "nan"])
def test_a_negative_or_absurd_cached_price_is_one_line(value: Any) -> None:
    data = {
        "experiment": "frohlich",
        "agents": [{"name": "A", "model": "simulated"}, {"name": "B", "model": "simulated"}],
        "prices": {"gpt-x": {"input": 1, "output": 2, "cached_input": value}},
    }
    with pytest.raises(ConfigError) as caught:
        validate_config(FrohlichConfig, data, "c.yaml")
    (line,) = str(caught.value).splitlines()
    assert line.startswith("c.yaml: prices.gpt-x.cached_input: ")


def test_a_run_records_cached_tokens_and_shows_their_cost(tmp_path: Path) -> None:
    """Through the engine and the CLI: Bob's server reports cached input; the run verifies,
    and `show` prints the cost at the cached rate."""
    model = FakeModel()

    def reply(received: Received) -> Reply:
        answer = model.reply(received)
        if isinstance(answer.body, dict) and "usage" in answer.body:
            answer.body["usage"] = {
                "prompt_tokens": 2000,
                "completion_tokens": 100,
                "total_tokens": 2100,
                "prompt_tokens_details": {"cached_tokens": 1024},
                "completion_tokens_details": {"reasoning_tokens": 10},
            }
        return answer

    with loopback_server() as srv:
        srv.script(*[reply] * 10_000)

        def edit(data: dict[str, Any]) -> None:
            serve_agent(data, "Bob", srv.base_url)
            data["prices"] = {MODEL: {"input": 1.0, "cached_input": 0.25, "output": 4.0}}

        config = load_config(write_config(tmp_path / "c.yaml", agents=3, rounds=1, edit=edit))
        db = str(tmp_path / "ledger.db")
        with EventStore.open(db) as store:
            run_id = start_run(store, config)
            asyncio.run(Engine(store, run_id, LiveExecutor(config, env={})).run())
            assert store.get_run(run_id).status == "completed"
            assert verify_events(store.read(run_id)).ok
            history = history_from_stored(run_id, store.read(run_id))
            usage = recorded_usage(store, run_id)
    bob = [e for _, e in history.of(ModelCallCompleted) if e.agent == "Bob"]
    assert bob and all(e.answer.usage.cached_input_tokens == 1024 for e in bob)
    calls = len(bob)
    assert usage.cached_input_tokens[MODEL] == 1024 * calls
    expected = calls * (976 * 1.0 + 1024 * 0.25 + 100 * 4.0) / 1e6
    assert usage.cost_usd(config.prices) == pytest.approx(expected)  # simulated: free
    result = CliRunner().invoke(app, ["show", run_id, "--db", db])
    assert result.exit_code == 0, result.output
    assert f"cost: ${expected:,.4f}" in result.output
    assert f"({1024 * calls:,} cached)" in result.output
    assert f"({10 * calls:,} reasoning)" in result.output
