"""Frohlich's opt-in ``prompt_layout: stable_prefix`` (docs/frohlich.md, "Prompt layout"):
static instructions, then the public history, then the per-step state and task; runs verify
and pass the audits; the default layout is unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from maai.cli.app import app
from maai.domain.events import ModelCallRequested
from maai.domain.frohlich.config import parse_config
from maai.domain.frohlich.prompts import word
from maai.ledger import EventStore
from maai.projections.history import history_from_stored
from maai.runtime.verify import verify_events
from tests.e2e.runs import run_in_process, write_config
from tests.support.benchmarks import load_benchmark


def _requests(db: str, run_id: str) -> list[ModelCallRequested]:
    with EventStore.open(db) as store:
        assert verify_events(store.read(run_id)).ok
        history = history_from_stored(run_id, store.read(run_id))
    return [e for _, e in history.of(ModelCallRequested) if e.request.agent != "utility"]


def _run(tmp_path: Path, layout: str | None, language: str = "en") -> tuple[str, str]:
    def edit(data: dict[str, Any]) -> None:
        if layout is not None:
            data["prompt_layout"] = layout
        data["language"] = language
        for agent in data["agents"]:
            agent.pop("language", None)

    config = write_config(tmp_path / "c.yaml", agents=3, rounds=3, edit=edit)
    db = str(tmp_path / "l.db")
    return db, run_in_process(config, db)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_history_comes_before_the_state_and_each_prompt_extends_the_last(
    tmp_path: Path, language: str
) -> None:
    db, run_id = _run(tmp_path, "stable_prefix", language)
    statements = [e for e in _requests(db, run_id) if e.request.purpose == "statement"]
    balance = {"en": "Bank balance:", "es": "Saldo bancario:", "zh": "银行余额："}[language]
    by_agent: dict[str, list[str]] = {}
    for event in statements:
        text = event.request.input
        # The state and the task come after the history; the task points back to it.
        assert word(language, "history_above") in text
        assert text.index(balance) < text.index(word(language, "history_above"))
        by_agent.setdefault(event.request.agent, []).append(text)
    for texts in by_agent.values():
        for before, after in zip(texts, texts[1:], strict=False):
            # Everything up to the end of the earlier prompt's history is repeated whole.
            head = before[: before.index(balance)].rstrip("-\n ")
            if head.endswith(word(language, "nothing_said")):  # the first speaker's prompt
                head = head[: -len(word(language, "nothing_said"))]
            assert after.startswith(head)


def test_the_default_layout_is_the_seeds(tmp_path: Path) -> None:
    db, run_id = _run(tmp_path, None)
    statement = next(e for e in _requests(db, run_id) if e.request.purpose == "statement")
    text = statement.request.input
    assert text.index("Bank balance:") < text.index("Public discussion so far:")
    assert word("en", "history_above") not in text
    data = yaml.safe_load((tmp_path / "c.yaml").read_text())
    assert "prompt_layout" not in parse_config(data).model_dump(mode="json")


def test_a_stable_prefix_run_passes_the_audits(tmp_path: Path) -> None:
    db, run_id = _run(tmp_path, "stable_prefix")
    for audit in ("protocol", "leaks", "votes"):
        result = CliRunner().invoke(app, ["audit", audit, run_id, "--db", db])
        assert result.exit_code == 0, result.output


def test_an_unknown_layout_is_one_line() -> None:
    from maai.domain.config import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_config(
            {
                "experiment": "frohlich",
                "agents": [{"name": "A"}, {"name": "B"}],
                "prompt_layout": "x",
            },
            "c.yaml",
        )
    (line,) = str(caught.value).splitlines()
    assert line.startswith("c.yaml: prompt_layout: ")


def test_the_cache_benchmark_measures_both_layouts() -> None:
    bench = load_benchmark("cache_bench.py", "maai_cache_bench")
    figures = bench.main(["--cells", "3x2", "--json"])
    rows = {row["layout"]: row for row in figures["cells"]}
    assert set(rows) == {"seed", "stable_prefix"}
    assert rows["stable_prefix"]["phase2_cacheable_share"] > rows["seed"]["phase2_cacheable_share"]
    assert bench.cached_tokens(1023) == 0 and bench.cached_tokens(1024 + 200) == 1024 + 128
    assert bench.common_prefix("abcdef", "abcxyz") == 3


def test_the_cache_benchmarks_what_ifs_move_the_state_around_the_history() -> None:
    bench = load_benchmark("cache_bench.py", "maai_cache_bench")
    history = "Rules\n\nPublic discussion so far:\n[Round 1] A: x\n[Round 2] B: y"
    parts = ["Name: A", history, "Bank balance: $1\nMemory:\nm", "Task"]
    text = bench.SEPARATOR.join(parts)
    first = bench.reordered(text, "p2/r2/A/poll/1", "memory_first")
    assert first.split(bench.SEPARATOR) == [parts[0], parts[2], history, "Task"]
    middle = bench.reordered(text, "p2/r2/A/poll/1", "memory_mid").split(bench.SEPARATOR)
    assert middle[1].endswith("[Round 1] A: x\n") and middle[2] == parts[2]
    assert middle[3] == "[Round 2] B: y"
    # A request without the public history (a memory update) is measured as recorded.
    assert bench.reordered(
        bench.SEPARATOR.join([parts[0], parts[2], "Task"]), "p2/r2/A/memory", "memory_first"
    ) == bench.SEPARATOR.join([parts[0], parts[2], "Task"])
