"""Random single-event edits of a recorded run, the chain re-hashed after each so that only
the content checks (``verify``'s replay, the audits) can see them: what an adversary who
knows the hash recipe, or a bug in a tool that rewrites ledgers, would leave behind."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Sequence
from typing import Any

from maai.canonical import canonical_json
from maai.ledger import GENESIS_HASH, StoredEvent, envelope_hash
from maai.ledger.envelope import format_recorded_at

Path = tuple[str | int, ...]

ODD_TEXT = ("", "é漢字🙂", "\u202eevil", "\x00", "  \n---\n  ", "Ω" * 300)
ODD_VALUES: tuple[Any, ...] = (None, "x", 7, 1.5, True, [], {}, [1], {"a": 1})
OUT_OF_RANGE = (-1, 0, -(10**9), 10**12, 2**63, 1e308, 0.5)
KINDS = ("deleted", "type changed", "shortened", "lengthened", "out of range", "unicode")


def rechained(records: Sequence[StoredEvent]) -> list[StoredEvent]:
    """``records`` with every link and hash recomputed from their payloads."""
    out: list[StoredEvent] = []
    prev = GENESIS_HASH
    for record in records:
        digest = envelope_hash(
            run_id=record.run_id,
            seq=record.seq,
            type=record.type,
            schema_version=record.schema_version,
            payload_json=canonical_json(record.payload),
            agent=record.agent,
            recorded_at=format_recorded_at(record.recorded_at),
            prev_hash=prev,
        )
        out.append(record.model_copy(update={"prev_hash": prev, "hash": digest}))
        prev = digest
    return out


def _paths(value: Any, at: Path = ()) -> Iterator[tuple[Path, Any]]:
    if at:
        yield at, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*at, index))


def _kinds_for(value: Any) -> list[str]:
    kinds = ["deleted", "type changed", "unicode"]
    if isinstance(value, list):
        kinds += ["shortened", "lengthened"] * 2
    if isinstance(value, int | float) and not isinstance(value, bool):
        kinds += ["out of range"] * 3
    if isinstance(value, str):
        kinds += ["unicode"]
    return kinds


def edit_payload(
    payload: dict[str, Any], rng: random.Random, names: Sequence[str] = ()
) -> tuple[dict[str, Any], str]:
    """A copy of ``payload`` with one value edited, and what was done to it; a lengthened
    list may gain one of ``names`` (an agent of the run: an absent witness, a second vote)."""
    edited = copy.deepcopy(payload)
    path, value = rng.choice(list(_paths(edited)))
    parent: Any = edited
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    kind = rng.choice(_kinds_for(value))
    if kind == "deleted":
        del parent[key]
    elif kind == "type changed":
        parent[key] = rng.choice([v for v in ODD_VALUES if type(v) is not type(value)])
    elif kind == "out of range":
        parent[key] = rng.choice([v for v in OUT_OF_RANGE if v != value])
    elif kind == "unicode":
        parent[key] = rng.choice(ODD_TEXT) + (value if isinstance(value, str) else "")
    elif kind == "shortened":
        if value:
            value.pop(rng.randrange(len(value)))
        else:
            parent[key] = [rng.choice(ODD_VALUES)]
    else:  # lengthened: with a copy of an item, an agent's name, or a stranger
        roll = rng.random()
        if value and roll < 0.5:
            extra = copy.deepcopy(rng.choice(value))
        elif names and roll < 0.8:
            extra = rng.choice(list(names))
        else:
            extra = "zed"
        value.insert(rng.randrange(len(value) + 1), extra)
    return edited, f"{kind}: {'/'.join(map(str, path))}"


def edited_runs(
    records: Sequence[StoredEvent], count: int, seed: int
) -> Iterator[tuple[str, list[StoredEvent]]]:
    """``count`` copies of a run, each with one event's payload edited and re-chained."""
    rng = random.Random(seed)
    editable = [i for i, r in enumerate(records) if r.payload]
    names = sorted({r.agent for r in records if r.agent})
    for _ in range(count):
        index = rng.choice(editable)
        payload, what = edit_payload(records[index].payload, rng, names)
        edited = list(records)
        edited[index] = edited[index].model_copy(update={"payload": payload})
        yield f"seq {records[index].seq} ({records[index].type}) {what}", rechained(edited)
