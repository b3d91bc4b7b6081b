"""Long runs of the world and the collaboration game: what bounds a prompt, however long the
run (docs/world.md, "Long runs"; docs/collaboration.md, "Long runs"). Frohlich's bound is
``history.window_rounds`` (tests/domain/test_history_window.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.world.config import WorldConfig
from maai.ledger import EventStore
from maai.runtime.config_files import read_config
from maai.runtime.runs import load_config
from maai.runtime.verify import verify_events
from tests.e2e.runs import run_in_process, write_config
from tests.support import collaboration_driver, world_driver
from tests.support.ledger_edits import rechained

REMEMBERED = "Things you remember:\n"
OBSERVED = "What you observed since your last step:\n"


def _listed(prompt: str, heading: str) -> list[str]:
    """The ``- `` lines right under ``heading`` (none where the prompt has no such part)."""
    if heading not in prompt:
        return []
    lines = prompt.split(heading, 1)[1].splitlines()
    listed = []
    for line in lines:
        if not line.startswith("- "):
            break
        listed.append(line)
    return listed


def _tick(address: str) -> int:
    found = re.search(r"/t(\d+)/", address)
    assert found is not None, address
    return int(found.group(1))


def _act_prompts(config: WorldConfig) -> list[tuple[int, str]]:
    run = world_driver.drive(config)
    return [(_tick(r.address), r.input) for r in run.requests if r.purpose == "act"]


def test_a_world_prompt_shows_at_most_k_memories_and_one_ticks_observations() -> None:
    """The memory stream grows with every tick; a prompt does not: it shows the last tick's
    observations (at most one action of each other agent) and the ``retrieval.k`` best-ranked
    older memories."""
    base = world_driver.load("world_free.yaml", max_ticks=30)
    others = len(base.world.agents) - 1
    for k in (1, 3):
        config = base.model_copy(update={"retrieval": base.retrieval.model_copy(update={"k": k})})
        prompts = _act_prompts(config)
        assert max(tick for tick, _ in prompts) >= 25, "the run ended early"
        remembered = [len(_listed(prompt, REMEMBERED)) for _, prompt in prompts]
        assert max(remembered) == k  # the bound is reached, never passed
        assert max(len(_listed(prompt, OBSERVED)) for _, prompt in prompts) <= others
    # The bound holds as the run goes on: late prompts are no longer than early ones allow.
    longest = {tick: len(prompt) for tick, prompt in _act_prompts(base)}
    early = max(size for tick, size in longest.items() if tick < 10)
    late = max(size for tick, size in longest.items() if tick >= 20)
    assert late < 2 * early, (early, late)


def _world_run(folder: Path, k: int) -> tuple[str, str]:
    data = read_config(world_driver.CONFIGS / "world_free.yaml")  # its world file read in
    data.update(max_ticks=8, retrieval={"k": k})
    path = folder / "world.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert load_config(path).retrieval.k == k  # type: ignore[attr-defined]
    db = str(folder / "world.db")
    return db, run_in_process(path, db)


def test_retrieval_k_is_recorded_and_verified_like_any_rule(tmp_path: Path) -> None:
    db, run_id = _world_run(tmp_path, k=1)
    with EventStore.open(db) as store:
        stored = list(store.read(run_id))
    started = stored[0]
    assert started.type == "run.started"
    assert started.payload["config"]["retrieval"]["k"] == 1
    assert verify_events(stored).ok
    # The same run claiming another k (its chain re-hashed: only the replay can tell).
    edited = started.payload | {
        "config": started.payload["config"] | {"retrieval": {"k": 3}},
    }
    report = verify_events(rechained([started.model_copy(update={"payload": edited}), *stored[1:]]))
    assert not report.ok
    assert any("/act/" in d.address and "request differs" in d.detail for d in report.divergences)


def _decision_prompts(exchanges: int) -> tuple[list[str], list[str]]:
    config = collaboration_driver.make_config(exchanges=exchanges)
    run = collaboration_driver.drive(config, collaboration_driver.well_behaved)
    messages = [m.text for m in run.state.messages if m.text is not None]
    decisions = [r.input for r in run.requests if r.purpose == "decision"]
    assert len(decisions) == 2 and len(messages) == 2 * exchanges
    return decisions, messages


def test_a_collaboration_prompt_grows_only_by_the_protocols_messages() -> None:
    """The conversation is the only part of a prompt that grows, and the protocol caps it:
    ``exchanges`` (1 to 10) makes at most 20 messages, each one answer of its writer."""
    framing = {}
    for exchanges in (1, 10):
        decisions, messages = _decision_prompts(exchanges)
        for prompt in decisions:
            assert all(text in prompt for text in messages)  # the whole conversation
        framing[exchanges] = max(len(p) for p in decisions) - sum(len(t) for t in messages)
    # Beyond the messages' own text, each added message costs its numbered line's framing.
    added = 2 * 10 - 2 * 1
    assert 0 <= framing[10] - framing[1] <= added * len("20. Ben: \n")


def test_exchanges_are_recorded_and_verified_like_any_rule(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "collaboration.yaml", base=world_driver.CONFIGS / "collaboration.yaml", rounds=2
    )
    db = str(tmp_path / "collaboration.db")
    run_id = run_in_process(config, db)
    with EventStore.open(db) as store:
        stored = list(store.read(run_id))
    started = stored[0]
    assert started.payload["config"]["exchanges"] == 2 and verify_events(stored).ok
    # The same run claiming three exchanges: the replay asks for messages it never recorded.
    edited = started.payload | {"config": started.payload["config"] | {"exchanges": 3}}
    report = verify_events(rechained([started.model_copy(update={"payload": edited}), *stored[1:]]))
    assert not report.ok
    # Step 5, the closing update of two exchanges, is a turn with a message in three.
    first = report.divergences[0]
    assert first.address.startswith("c/t") and "request differs" in first.detail


def test_more_exchanges_than_the_protocol_allows_are_refused() -> None:
    with pytest.raises(ValueError, match="exchanges"):
        CollaborationConfig.model_validate(
            collaboration_driver.make_config().model_dump(mode="json") | {"exchanges": 11}
        )
