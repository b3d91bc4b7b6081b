"""The golden run: a small Frohlich run played by the simulated participants through the pure
protocol (no store, no runtime), and its checked-in recording.

Three agents (one without private reasoning; 60-word memories keep the prompts, and so the
golden files, small), two discussion rounds, a single attempt for Phase-1 choices so that a
slip becomes a missing value and an unpaid round. Seed 52 gives rejected and utility-read
answers, a failed poll, a ballot without consensus, and no agreement.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from maai.domain.calls import ModelRequest
from maai.domain.events import Event
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.simulated import build_policy as build_simulated
from maai.ledger import StoredEvent
from maai.projections.history import History, chain, history_from_stored
from tests.support.driver import drive, make_config

GOLDEN = Path(__file__).parent / "golden"
RECORDING = GOLDEN / "recording.jsonl.gz"
RUN_ID = "golden-run"


def golden_config() -> FrohlichConfig:
    persona: dict[str, Any] = {"error_rate": 0.15, "conformity": 0.9}
    memory = 60
    return make_config(
        seed=52,
        phase2_rounds=2,
        attempts={"choice": 1, "ballot": 2},
        agents=[
            {
                "name": "alice",
                "personality": "A nurse.",
                "memory_words": memory,
                "persona": {**persona, "preferred_principle": "c", "preferred_amount": 13000},
            },
            {
                "name": "bob",
                "personality": "An engineer.",
                "memory_words": memory,
                "persona": {**persona, "preferred_principle": "b"},
            },
            {
                "name": "carol",
                "personality": "A teacher.",
                "memory_words": memory,
                "reasoning": False,
                "persona": {**persona, "preferred_principle": "a"},
            },
        ],
    )


def simulated_responder(config: FrohlichConfig) -> Any:
    models = {a.name: build_simulated(a, seed=config.seed) for a in config.agents}
    utility = build_simulated(None, seed=config.seed)

    def respond(request: ModelRequest) -> str:
        model = utility if request.agent == "utility" else models[request.agent]
        return model.answer(request, request.output_schema)  # type: ignore[attr-defined, no-any-return]

    return respond


def play(config: FrohlichConfig) -> list[Event]:
    _, events, _ = drive(config, simulated_responder(config))
    return events


def write_recording(events: list[Event], path: Path = RECORDING) -> None:
    lines = [json.dumps(e.model_dump(mode="json"), sort_keys=True) for e in chain(events, RUN_ID)]
    data = ("\n".join(lines) + "\n").encode()
    # mtime=0 and no file name: the same events give the same bytes.
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(data)


def read_recording(path: Path = RECORDING) -> list[StoredEvent]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [StoredEvent.model_validate_json(line) for line in lines if line.strip()]


def golden_history() -> History:
    return history_from_stored(RUN_ID, read_recording())
