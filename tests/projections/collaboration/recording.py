"""The collaboration golden run: two exchanges played by the simulated participants through
the pure protocol (no store, no runtime), and its checked-in recording. Seed 28 gives a
message-rule breach, a rejected answer, an answer read by the utility agent and a
mismatch."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.events import Event
from maai.ledger import StoredEvent
from maai.projections.history import History, chain, history_from_stored
from tests.projections.collaboration.driver import drive
from tests.projections.collaboration.runs import small_config

GOLDEN = Path(__file__).parent / "golden"
RECORDING = GOLDEN / "recording.jsonl.gz"
RUN_ID = "golden-collaboration"


def golden_config() -> CollaborationConfig:
    persona = {"error_rate": 0.3, "breach_rate": 0.4}
    return small_config(
        seed=28,
        agents=[
            {
                "name": "Ada",
                "company": "Brickworks Motors",
                "u_value": 0.7,
                "persona": {**persona, "kind": "trusting"},
            },
            {
                "name": "Ben",
                "company": "Studline Cars",
                "u_value": 0.8,
                "persona": {**persona, "kind": "cautious"},
            },
        ],
    )


def play(config: CollaborationConfig) -> list[Event]:
    return drive(config)


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
