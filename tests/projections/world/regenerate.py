"""Regenerate the golden files of the world's projections.

    python -m tests.projections.world.regenerate            # re-project the recording
    python -m tests.projections.world.regenerate --record   # re-play the golden run first

Run the first after an intended change to a projection and review the diff of
``tests/projections/world/golden/``. Use ``--record`` only when the protocol, its prompts or
the simulated participants changed on purpose: it replaces the recorded run itself.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from maai.projections.history import History
from maai.projections.jsonout import dumps
from maai.projections.world import VIEWS
from tests.projections.world.recording import (
    GOLDEN,
    golden_config,
    golden_history,
    play,
    write_recording,
)


def golden_outputs(history: History) -> dict[str, str]:
    """Path under golden/ → the projection's text."""
    files = {
        "export.json": dumps(VIEWS.agent_log(history)),
        "transcript.md": VIEWS.transcript(history),
        "audit_leaks.json": dumps(VIEWS.audit_leaks(history).to_json()),
        "audit_protocol.json": dumps(VIEWS.audit_protocol(history).to_json()),
    }
    files.update({f"tables/{name}": text for name, text in VIEWS.tables([history]).items()})
    return files


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--record", action="store_true", help="re-play the golden run first")
    args = parser.parse_args(argv)
    GOLDEN.mkdir(parents=True, exist_ok=True)
    if args.record:
        write_recording(play(golden_config()))
    for name, text in golden_outputs(golden_history()).items():
        path: Path = GOLDEN / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
