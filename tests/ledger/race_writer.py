"""A writer process for the racing-writers test (run as a script, not collected).

    python race_writer.py URL RUN_ID WRITER ROUNDS SYNC_DIR

Opens its own store, announces itself with ``SYNC_DIR/ready-WRITER``, waits for
``SYNC_DIR/go``, then for k = 0 .. ROUNDS-1 tries once to append one event at expected seq k.
Prints one JSON object: ``{"writer": ..., "outcomes": [[k, "won" | "lost" | "error", detail]]}``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from maai.ledger import ConcurrencyError, EventStore, LedgerError, NewEvent


def main() -> int:
    url, run_id, writer, rounds_text, sync_text = sys.argv[1:6]
    rounds, sync = int(rounds_text), Path(sync_text)
    outcomes: list[list[Any]] = []
    with EventStore.open(url) as store:
        (sync / f"ready-{writer}").touch()
        deadline = time.monotonic() + 60
        while not (sync / "go").exists():
            if time.monotonic() > deadline:
                print(json.dumps({"writer": writer, "outcomes": [], "timeout": True}))
                return 1
            time.sleep(0.002)
        for k in range(rounds):
            event = NewEvent(type="race", payload={"writer": writer, "k": k}, agent=writer)
            try:
                store.append(run_id, k, [event])
                outcomes.append([k, "won", None])
            except ConcurrencyError as exc:
                outcomes.append([k, "lost", [exc.expected, exc.actual]])
            except LedgerError as exc:
                outcomes.append([k, "error", f"{type(exc).__name__}: {exc}"])
    print(json.dumps({"writer": writer, "outcomes": outcomes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
