"""Regenerate the golden files of the projections.

    python -m tests.projections.frohlich.regenerate            # re-project the checked-in recording
    python -m tests.projections.frohlich.regenerate --record   # re-play the golden run first

Run the first after an intended change to a projection and review the diff of
``tests/projections/frohlich/golden/``. Use ``--record`` only when the protocol or the simulated
participant changed on purpose: it replaces the recorded run itself, so every golden file
may change.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from maai.projections.frohlich.agent_log import agent_log
from maai.projections.frohlich.leaks import audit_leaks
from maai.projections.frohlich.protocol import audit_protocol
from maai.projections.frohlich.tables import render_tables
from maai.projections.frohlich.transcript import transcript
from maai.projections.frohlich.votes import vote_audit
from maai.projections.history import History
from maai.projections.jsonout import dumps
from tests.projections.frohlich.recording import (
    GOLDEN,
    golden_config,
    golden_history,
    play,
    write_recording,
)


def golden_outputs(history: History) -> dict[str, str]:
    """Path under golden/ → the projection's text."""
    files = {
        "export.json": dumps(agent_log(history)),
        "transcript.md": transcript(history),
        "audit_votes.json": dumps(vote_audit(history)),
        "audit_leaks.json": dumps(audit_leaks(history).to_json()),
        "audit_protocol.json": dumps(audit_protocol(history).to_json()),
    }
    files.update({f"tables/{name}": text for name, text in render_tables([history]).items()})
    return files


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
