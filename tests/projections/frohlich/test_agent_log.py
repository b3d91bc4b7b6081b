"""The agent-centric JSON log."""

from __future__ import annotations

import json

import pytest

from maai.domain.events import Event, ModelCallRequested, RunFailed, RunStarted
from maai.domain.frohlich.events import MemoryUpdated, PayoffAwarded
from maai.projections.frohlich.agent_log import UnknownAgentError, agent_log
from maai.projections.frohlich.leaks import audit_leaks
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.history import History, history_from_events
from maai.projections.jsonout import dumps, scrub
from tests.projections.tamper import find, with_config


def test_same_events_give_the_same_bytes(golden: History, golden_events: list[Event]) -> None:
    again = history_from_events(golden_events, run_id=golden.run_id)
    assert dumps(agent_log(golden)) == dumps(agent_log(again))


def test_run_level_facts(golden: History) -> None:
    run = agent_log(golden)["run"]
    assert run["run_id"] == "golden-run" and run["status"] == "completed" and run["seed"] == 52
    assert run["agents"] == ["alice", "bob", "carol"]
    assert run["outcome"]["discussion_ended"] and run["outcome"]["agreement"] is None
    chosen = run["phase2_payment"]["chosen"]
    assert chosen["how"] == "drawn uniformly at random" and chosen["distribution"] == 4
    usage = run["model_usage"]
    requested = len(golden.of(ModelCallRequested))
    assert usage["total"]["calls"] == requested
    assert usage["total"]["calls"] == sum(p["calls"] for p in usage["by_phase"].values())
    assert set(usage["by_phase"]) == {"phase1", "phase2"} and "utility" in usage["by_agent"]


def test_every_call_of_an_agent_in_order_with_texts_and_parses(golden: History) -> None:
    log = agent_log(golden)
    for name, agent in log["agents"].items():
        mine = [r for _, r in golden.of(ModelCallRequested) if r.request.agent == name]
        assert [c["address"] for c in agent["calls"]] == [r.request.address for r in mine]
        seqs = [c["seq"] for c in agent["calls"]]
        assert seqs == sorted(seqs)
        for call, requested in zip(agent["calls"], mine, strict=True):
            assert call["input"] == requested.request.input
            assert call["system"] == requested.request.system
            assert call["answer"]["text"]
    bob_first = log["agents"]["bob"]["calls"][0]
    # bob's first ranking was unreadable to the parser, so the utility agent was asked.
    assert [r["source"] for r in bob_first["results"]] == ["parser", "utility"]
    assert bob_first["extractions"][0]["agent"] == "utility"
    assert bob_first["step"] == "1.1" and bob_first["phase"] == 1


def test_memory_before_and_after_chain(golden: History) -> None:
    memory = agent_log(golden)["agents"]["carol"]["memory"]
    updates = [m for _, m in golden.of(MemoryUpdated) if m.agent == "carol"]
    assert [m["after"] for m in memory] == [u.memory for u in updates]
    assert memory[0]["before"] == ""
    assert all(b["before"] == a["after"] for a, b in zip(memory, memory[1:], strict=False))


def test_balance_rankings_choices_missing(golden: History) -> None:
    alice = agent_log(golden)["agents"]["alice"]
    paid = [p for _, p in golden.of(PayoffAwarded) if p.agent == "alice"]
    assert [b["balance_cents"] for b in alice["bank_balance"]] == [p.balance_cents for p in paid]
    assert [r["step"] for r in alice["rankings"]] == ["1.1", "1.2", "1.4", "2.3"]
    assert all(r["value"]["certainty"] for r in alice["rankings"])
    assert [(c["round"], c["status"]) for c in alice["choices"]] == [
        (1, "missing"),
        (2, "accepted"),
        (3, "missing"),
        (4, "accepted"),
    ]
    assert [m["slot"] for m in alice["missing"]] == ["p1/alice/r1/choice", "p1/alice/r3/choice"]
    assert [u["round"] for u in alice["unpaid_rounds"]] == [1, 3]
    assert alice["payoffs"][-1]["scope"] == "phase2"
    assert len(alice["payoffs"][0]["counterfactuals"]) == 4


def test_one_agent_alone_and_an_unknown_agent(golden: History) -> None:
    full = agent_log(golden)
    bob = agent_log(golden, "bob")
    assert list(bob["agents"]) == ["bob"] and bob["agents"]["bob"] == full["agents"]["bob"]
    assert bob["run"] == full["run"]
    with pytest.raises(UnknownAgentError, match="alice, bob, carol"):
        agent_log(golden, "dave")


def test_secret_looking_keys_never_reach_the_export(golden_events: list[Event]) -> None:
    agents = [
        {**a, "provider": {"base_url": "http://x", "api_key_env": "MY_SECRET_VAR"}}
        for a in find(golden_events, RunStarted).config["agents"]
    ]
    history = history_from_events(with_config(golden_events, agents=agents))
    text = dumps(agent_log(history))
    assert "api_key_env" not in text and "MY_SECRET_VAR" not in text
    assert "http://x" in text
    assert scrub({"a": [{"Token": 1, "b": 2}], "client_secret": 3}) == {"a": [{"b": 2}]}


def test_an_in_progress_run_exports_what_there_is(golden: History) -> None:
    # Cut right after a request, before its answer: a run interrupted mid-call.
    last = next(e.seq for e, _ in golden.of(ModelCallRequested) if e.seq > 195)
    cut = History(golden.run_id, golden.entries[:last])
    log = json.loads(dumps(agent_log(cut)))
    assert log["run"]["status"] == "running"
    assert log["run"]["outcome"]["discussion_ended"] is False
    assert log["run"]["phase2_payment"] is None
    pending = [c for a in log["agents"].values() for c in a["calls"] if c["answer"] is None]
    assert [c["seq"] for c in pending] == [last]


def test_a_failed_run_exports_its_failure_and_passes_the_audits(golden: History) -> None:
    last = next(e.seq for e, _ in golden.of(ModelCallRequested) if e.seq > 230)
    failed = RunFailed(reason="model kept failing", address="p2/r2/x", agent="bob")
    events = [e.event for e in golden.entries[:last]] + [failed]
    history = history_from_events(events)
    run = agent_log(history)["run"]
    assert run["status"] == "failed" and run["failure"]["reason"] == "model kept failing"
    assert audit_protocol(history).violations == ()
    assert audit_leaks(history).ok
