"""Small simulated studies for the study report's tests (tests/projections and tests/browser):
each is run by ``maai study run`` on a temporary SQLite ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from maai.cli.app import app

CONFIGS = Path(__file__).resolve().parents[2] / "configs"

HOSTILE_COMPANY = '<script>window.__pwned=1</script> & "Bricks" <b>'
"""A factor value that would be markup if it were not escaped."""

COLLABORATION: dict[str, Any] = {
    "study": "collab",
    "base": "collaboration",
    "factors": {
        "agents[*].u_value": [0.55, 0.85],
        "agents[0].company": [HOSTILE_COMPANY],
    },
    "replicates": 3,
    "seed": 1,
    "concurrency": 6,
}

FROHLICH_CONFOUND = "The manipulator is always Dmitri: <b>agent</b> and role go together."
"""A declared confound, markup in it shown as text."""

# Four participants with personas derived from their names (who move towards each other,
# docs/simulated.md) and ten rounds: with this seed three of the four discussions agree, one
# group adopting the manipulator's target, so every plot of the page has something to draw.
FROHLICH: dict[str, Any] = {
    "study": "frohlich-small",
    "config": {
        "experiment": "frohlich",
        "phase2_rounds": 10,
        "agents": [{"name": n, "model": "simulated"} for n in ("Alice", "Bob", "Carmen", "Dmitri")],
    },
    "factors": {"manipulator": [None, {"agent": "Dmitri"}]},
    "replicates": 2,
    "seed": 3,
    "concurrency": 4,
    "reference": {
        "agreed_principle": {"a": 0.1, "b": 0.2, "c": 0.6, "d": 0.1},
        "source": "an illustrative reference <i>not</i> a published one",
    },
    "confounds": [FROHLICH_CONFOUND],
}


def _world_pgg_priming(rounds: int, max_ticks: int) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((CONFIGS / "world_pgg_priming.yaml").read_text())
    data["game"]["rounds"] = rounds
    return {**data, "max_ticks": max_ticks}


# The public-goods game with two primings (in each run two players read one story, two the
# other), two rounds, at two multipliers: every cell and round has a mean over two runs.
WORLD: dict[str, Any] = {
    "study": "world-small",
    "config": _world_pgg_priming(rounds=2, max_ticks=40),
    "factors": {"game.multiplier": [1.2, 2.0]},
    "replicates": 2,
    "seed": 4,
    "concurrency": 4,
}

# A free world, no game: the study report lists its run as such.
WORLD_FREE: dict[str, Any] = {"study": "world-free", "base": "world_free"}


def run_study(folder: Path, study: dict[str, Any]) -> tuple[str, Path]:
    """Write ``study`` to ``folder/study.yaml`` and run it on ``folder/ledger.db``."""
    path = folder / "study.yaml"
    path.write_text(yaml.safe_dump(study, sort_keys=False), encoding="utf-8")
    db = str(folder / "ledger.db")
    made = CliRunner().invoke(app, ["study", "run", str(path), "--db", db, "-q"])
    assert made.exit_code == 0, made.output
    return db, path


def write_report(db: str, study: str, page: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["study", "report", study, "--db", db, "-o", str(page), *extra])
