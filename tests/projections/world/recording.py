"""The world's golden run: a two-player public-goods game with a moderator, and a villager
wandering about, played by the simulated participants through the pure protocol (no store,
no runtime), and its checked-in recording. The seed gives a contribution sent back, one read
by the utility agent, a refused action, a wrong announcement, and several plans queued in one
answer, the next made current when the one before ended."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from maai.domain.events import Event
from maai.domain.world.config import WorldConfig
from maai.ledger import StoredEvent
from maai.projections.history import History, chain, history_from_stored
from tests.support.world_driver import drive

GOLDEN = Path(__file__).parent / "golden"
RECORDING = GOLDEN / "recording.jsonl.gz"
RUN_ID = "golden-world"
SEED = 25


def golden_config(seed: int = SEED) -> WorldConfig:
    def agent(name: str, role: str | None, kind: str, bio: str) -> dict[str, Any]:
        return {
            "name": name,
            "role": role,
            "public_bio": f"{name}, a villager.",
            "private_bio": bio,
            "location": "Hall",
            "plan": {"location": "Hall", "description": f"{name} takes part in the game"},
            "persona": {"kind": kind, "error_rate": 0.3},
        }

    return WorldConfig.model_validate(
        {
            "experiment": "world",
            "name": "golden-world",
            "seed": seed,
            "max_ticks": 12,
            "plan_max_ticks": 4,
            "game": {"game_room": "Hall", "contribution_room": "Booth"},
            "world": {
                "name": "Hamlet",
                "locations": [
                    {"name": "Hall", "description": "The village hall."},
                    {"name": "Booth", "description": "A booth for one player at a time."},
                    {"name": "Garden", "description": "A small garden."},
                ],
                "agents": [
                    agent("Ann", "player", "cooperative", "Ann hopes the group does well."),
                    agent("Ben", "player", "selfish", "Ben wants to keep his points."),
                    agent("Mod", "moderator", "moderator", "Mod keeps the game fair."),
                    {
                        **agent("Wil", None, "wanderer", "Wil is looking for his lost cat."),
                        "plan": {"location": "Garden", "description": "Wil looks for his cat"},
                    },
                ],
            },
        }
    )


def play(config: WorldConfig) -> list[Event]:
    return drive(config).events


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
