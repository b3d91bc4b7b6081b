"""Linear storage (ledger.packing): what a run repeats is stored once, and every payload is
read back exactly as it was appended, on both backends, whole or from the middle."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from maai.ledger import EventStore, InvalidEventError, NewEvent, canonical_json, head_revision
from maai.ledger.packed_values import (
    MIN_EVENT_CHARS,
    PACKED_KEY,
    Version,
    apply_ops,
    candidates,
    long_values,
)
from maai.ledger.packing import Packer, diff_list, diff_text
from maai.ledger.unpacking import Unpacker
from tests.ledger.helpers import RunSql

INSTRUCTIONS = "\n".join(
    f"Rule {i}: follow the protocol to the letter, step {i}." for i in range(40)
)


def prompt(agent: str, history: list[str], memory: str, task: str) -> dict[str, Any]:
    """A payload shaped like a model request: instructions, a private memory, the public
    history as text and as a list, and a task."""
    text = "\n".join([f"Name: {agent}", INSTRUCTIONS, "Memory:", memory, *history, "", task])
    items = [{"round": i // 3, "text": line, "kind": "statement"} for i, line in enumerate(history)]
    return {"request": {"agent": agent, "input": text, "context": {"history": items}}}


def growing_run(agents: int, rounds: int) -> list[NewEvent]:
    """Events of a discussion in which every prompt repeats the whole history so far."""
    history: list[str] = []
    events = []
    for r in range(rounds):
        for a in range(agents):
            agent = f"agent{a}"
            memory = f"I am {agent}; round {r}; I still think option {(a + r) % 4} is best."
            events.append(
                NewEvent(type="model.requested", payload=prompt(agent, history, memory, "Speak."))
            )
            said = f"[Round {r}] {agent}: " + f"I argue for option {a % 4}, because reasons. " * 4
            events.append(NewEvent(type="statement.made", payload={"text": said}, agent=agent))
            history.append(said)
    return events


def stored_sizes(run_sql: RunSql, run_id: str) -> list[int]:
    return [
        len(canonical_json(row[0] if isinstance(row[0], dict) else json.loads(row[0])))
        for row in run_sql(f"SELECT payload FROM events WHERE run_id = '{run_id}' ORDER BY seq")
    ]


def append_in_batches(store: EventStore, run_id: str, events: list[NewEvent], size: int) -> None:
    for start in range(0, len(events), size):
        store.append(run_id, start, events[start : start + size])


@pytest.mark.parametrize("batch", [1, 7])
def test_repeated_text_is_stored_once_and_read_back_exactly(
    store: EventStore, run_sql: RunSql, batch: int
) -> None:
    events = growing_run(agents=4, rounds=8)
    store.create_run("r1", "test", {})
    append_in_batches(store, "r1", events, batch)

    read = list(store.read("r1"))
    assert [e.payload for e in read] == [e.payload for e in events]
    assert store.verify_chain("r1").ok
    assert all(e.compute_hash() == e.hash for e in read)

    logical = sum(len(canonical_json(e.payload)) for e in events)
    stored = sum(stored_sizes(run_sql, "r1"))
    assert stored < logical / 4, (stored, logical)
    # The last prompt repeats the whole history, yet adds only what is new since the last.
    last_request = stored_sizes(run_sql, "r1")[-2]
    assert last_request < len(canonical_json(events[-2].payload)) / 10


def test_size_grows_linearly_with_the_run(tmp_path: Any) -> None:
    sizes = []
    for rounds in (8, 16):
        with EventStore.open(str(tmp_path / f"{rounds}.db")) as store:
            store.create_run("r", "test", {})
            append_in_batches(store, "r", growing_run(agents=4, rounds=rounds), 5)
            raw = store._engine.raw_connection()  # noqa: SLF001 -- measuring the stored bytes
            try:
                sizes.append(raw.execute("SELECT sum(length(payload)) FROM events").fetchone()[0])
            finally:
                raw.close()
    # Twice the rounds: about twice the bytes (four times, stored whole).
    assert sizes[1] / sizes[0] < 2.3, sizes


def test_reading_from_the_middle_rebuilds_older_bases(store: EventStore, store_url: str) -> None:
    events = growing_run(agents=3, rounds=6)
    store.create_run("r1", "test", {})
    append_in_batches(store, "r1", events, 4)
    with EventStore.open(store_url, read_chunk=3) as fresh:
        for start in (0, 1, 17, len(events) - 2):
            tail = [e.payload for e in fresh.read("r1", from_seq=start)]
            assert tail == [e.payload for e in events[start:]], start


def test_a_writer_with_no_memory_of_the_run_goes_on_correctly(
    store: EventStore, store_url: str
) -> None:
    events = growing_run(agents=3, rounds=6)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events[:10])
    with EventStore.open(store_url) as resumed:  # a new process resuming the run
        resumed.append("r1", 10, events[10:])
    assert [e.payload for e in store.read("r1")] == [e.payload for e in events]


def test_a_refused_append_leaves_no_base_behind(store: EventStore) -> None:
    events = growing_run(agents=2, rounds=5)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events[:6])
    with pytest.raises(Exception, match="expected"):
        store.append("r1", 3, events[6:9])  # stale head: refused, nothing stored
    store.append("r1", 6, events[6:])
    assert [e.payload for e in store.read("r1")] == [e.payload for e in events]


def test_list_items_equal_in_python_but_not_in_json_are_kept_apart(store: EventStore) -> None:
    base = [{"v": 1, "i": i, "pad": "x" * 600} for i in range(10)]
    twin = [{"v": 1.0, "i": i, "pad": "x" * 600} for i in range(10)]  # 1 == 1.0 in Python
    truth = [{"v": True, "i": i, "pad": "x" * 600} for i in range(10)]  # 1 == True too
    store.create_run("r1", "test", {})
    for seq, items in enumerate((base, twin, truth, base)):
        store.append("r1", seq, [NewEvent(type="t", payload={"items": items}, agent="a")])
    read = [canonical_json(e.payload) for e in store.read("r1")]
    assert read == [canonical_json({"items": items}) for items in (base, twin, truth, base)]


def test_the_reserved_key_is_refused(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    with pytest.raises(InvalidEventError, match="reserved"):
        store.append("r1", 0, [NewEvent(type="t", payload={PACKED_KEY: []})])
    assert store.head("r1") == 0


def test_changing_a_base_breaks_the_chain_where_it_was_changed(
    store: EventStore, run_sql: RunSql
) -> None:
    events = growing_run(agents=2, rounds=4)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events)
    # seq 3 is stored whole and is the base of later prompts: editing it would change what
    # they unpack to, so it must be caught at seq 3 itself.
    payload_of_3 = run_sql("SELECT payload FROM events WHERE run_id = 'r1' AND seq = 3")[0][0]
    assert PACKED_KEY not in (
        payload_of_3 if isinstance(payload_of_3, dict) else json.loads(payload_of_3)
    )
    if store.backend == "sqlite":
        edit = "UPDATE events SET payload = replace(payload, 'Rule 7', 'Rule 8')"
    else:
        edit = "UPDATE events SET payload = replace(payload::text, 'Rule 7', 'Rule 8')::jsonb"
    run_sql(f"{edit} WHERE run_id = 'r1' AND seq = 3")
    report = store.verify_chain("r1")
    assert (report.ok, report.first_bad_seq) == (False, 3)


# ---------------------------------------------------------------- the differences themselves


def edited(lines: list[str], rng: random.Random) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(0, 6)):
        where = rng.randint(0, len(out))
        choice = rng.random()
        if choice < 0.4:
            out.insert(where, f"new line {rng.random():.6f}")
        elif choice < 0.7 and out:
            del out[min(where, len(out) - 1)]
        elif out:
            out[min(where, len(out) - 1)] = rng.choice(lines or ["x"])  # a repeated line
    return out


@pytest.mark.parametrize("seed", range(40))
def test_text_differences_rebuild_exactly(seed: int) -> None:
    rng = random.Random(seed)
    own = [rng.choice(["", "a", "b", f"line {i}", "a"]) for i in range(rng.randint(0, 60))]
    other = edited(own, rng) + [f"shared {i}" for i in range(rng.randint(0, 5))]
    new = edited(own, rng) + other[-3:]
    bases = [Version(1, ("x",), "\n".join(own)), Version(2, ("x",), "\n".join(other))]
    ops, _ = diff_text(new, bases)
    assert apply_ops("t", ops, bases) == "\n".join(new)


@pytest.mark.parametrize("seed", range(60))
def test_lines_taken_from_a_base_are_the_texts_own(seed: int) -> None:
    """A text's lines and index taken from its base's (the writer's shortcut) are the ones
    splitting and indexing the text itself gives: the same differences are stored."""
    rng = random.Random(seed)
    words = ["", "a", "b", "line", "a b", "b\ta"]
    base_lines = [rng.choice([*words, f"line {i}"]) for i in range(rng.randint(0, 80))]
    # Mostly a long shared start and short ends (what a prompt is, and where the index is
    # derived from the base's), sometimes not.
    cut = rng.randint(0, len(base_lines)) if seed % 4 == 0 else len(base_lines) * 7 // 8
    new_lines = base_lines[:cut] + edited(base_lines[cut:], rng) + [rng.choice(words)]
    if rng.random() < 0.3 and new_lines:  # agree to the middle of a line
        new_lines[min(cut, len(new_lines) - 1)] += "x"
    base = Version(1, ("x",), "\n".join(base_lines))
    base.index()
    for text in ("\n".join(new_lines), base.value):
        taken = Version(2, ("x",), text)
        taken.share_lines(base)
        split = Version(2, ("x",), text)
        assert taken.items() == split.items()
        assert taken.index() == split.index()
        assert taken.line_ends() == split.line_ends()  # what the next text takes lines by


@pytest.mark.parametrize("seed", range(20))
def test_list_differences_rebuild_exactly(seed: int) -> None:
    rng = random.Random(seed)
    old = [{"i": rng.randint(0, 5)} for _ in range(rng.randint(0, 30))]
    new = [dict(x) for x in old[: rng.randint(0, len(old))]] + [{"i": 9}] * rng.randint(0, 4)
    new += [dict(x) for x in old[rng.randint(0, len(old)) :]]
    base = Version(1, ("x",), old)
    ops, added = diff_list(new, base)
    assert (apply_ops("l", ops, [base]) if old else new) == new
    assert added <= len(new)


def test_the_reader_follows_what_the_writer_packed() -> None:
    """Writer and reader without a database: every packed payload unpacks to its original."""
    packer = Packer()
    events = growing_run(agents=3, rounds=5)
    texts = [canonical_json(e.payload) for e in events]
    stored, commit = packer.pack(
        "r",
        0,
        [(e.type, e.agent) for e in events],
        [e.payload for e in events],
        texts,
        canonical_json,
    )
    commit()
    assert sum(PACKED_KEY in json.loads(s) for s in stored) >= len(events) / 2 - 6
    by_seq = {i + 1: json.loads(s) for i, s in enumerate(stored)}
    unpacker = Unpacker(lambda seq: by_seq[seq])
    for seq, text in by_seq.items():
        event = events[seq - 1]
        payload = unpacker.unpack(seq, event.type, event.agent, text, len(canonical_json(text)))
        assert payload == event.payload
    assert len(texts[-2]) >= MIN_EVENT_CHARS


def test_the_head_and_its_hash_are_read_without_the_payload(store: EventStore) -> None:
    store.create_run("r1", "test", {})
    assert store.head_hash("r1") is None
    events = growing_run(agents=2, rounds=3)
    receipts = store.append("r1", 0, events)
    assert store.head_hash("r1") == (len(events), receipts[-1].hash)


def test_types_kept_packed_come_back_as_stored_and_the_rest_whole(store: EventStore) -> None:
    events = growing_run(agents=2, rounds=4)
    store.create_run("r1", "test", {})
    store.append("r1", 0, events)
    read = list(store.read("r1", keep_packed=("model.requested",)))
    requests = [e for e in read if e.type == "model.requested"]
    assert any(PACKED_KEY in e.payload for e in requests)
    assert all(e.compute_hash() == e.hash for e in read)
    others = [e.payload for e in read if e.type != "model.requested"]
    assert others == [e.payload for e in events if e.type != "model.requested"]


def test_values_under_keys_that_are_not_strings_round_trip(store: EventStore) -> None:
    long_text = "\n".join(f"line {i} of a long text that repeats" for i in range(80))
    store.create_run("r1", "test", {})
    for seq in range(3):
        payload = {"by_round": {seq: long_text, 7: long_text + f"\nmore {seq}"}, "x": "y" * 4000}
        store.append("r1", seq, [NewEvent(type="t", payload=payload, agent="a")])
    read = [e.payload for e in store.read("r1")]
    assert [p["by_round"] for p in read] == [
        {str(seq): long_text, "7": long_text + f"\nmore {seq}"} for seq in range(3)
    ]


def test_going_back_to_0003_is_refused_once_an_event_is_packed(store: EventStore) -> None:
    from alembic import command
    from sqlalchemy import text

    from maai.ledger.migrate import alembic_config

    def downgrade() -> None:
        with store._engine.begin() as conn:  # noqa: SLF001 -- migrations run on the engine
            command.downgrade(alembic_config(conn), "0003")

    def revision() -> str:
        with store._engine.connect() as conn:  # noqa: SLF001
            return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar())

    store.create_run("r1", "test", {})
    store.append("r1", 0, growing_run(agents=1, rounds=1))  # too short to pack
    downgrade()
    assert revision() == "0003"
    with store._engine.begin() as conn:  # noqa: SLF001
        command.upgrade(alembic_config(conn), "head")
    events = growing_run(agents=2, rounds=4)
    store.append("r1", 2, events)
    assert any(PACKED_KEY in e.payload for e in store.read("r1", keep_packed=("model.requested",)))
    with pytest.raises(RuntimeError, match="stays at 0004"):
        downgrade()
    assert revision() == head_revision()  # the downgrade was refused whole


def test_a_damaged_difference_is_named_by_its_seq_when_read(
    store: EventStore, run_sql: RunSql
) -> None:
    from maai.ledger import ChainBrokenError

    store.create_run("r1", "test", {})
    store.append("r1", 0, growing_run(agents=2, rounds=4))
    packed = [
        e.seq for e in store.read("r1", keep_packed=("model.requested",)) if PACKED_KEY in e.payload
    ]
    seq = packed[-1]
    # A copy that reaches past the end of its base, as a broken writer would store it.
    if store.backend == "sqlite":
        edit = "UPDATE events SET payload = replace(payload, '[1,41]', '[1,99999]')"
    else:
        edit = "UPDATE events SET payload = replace(payload::text, '[1, 41]', '[1, 99999]')::jsonb"
    run_sql(f"{edit} WHERE run_id = 'r1' AND seq = {seq}")
    with pytest.raises(ChainBrokenError, match=f"seq {seq}.*cannot be unpacked"):
        list(store.read("r1"))
    report = store.verify_chain("r1")
    assert (report.ok, report.first_bad_seq) == (False, seq)


def test_the_readers_walk_finds_what_the_writers_finds() -> None:
    """``long_values`` (the reader's) and ``candidates`` (the writer's) find the same long
    values at the same paths, in any payload shape: nested dicts, short and long lists,
    lists in lists, non-string keys, a top-level ``"$packed"``."""
    long_text, long_list = "x" * 2000, list(range(20))
    payloads: list[dict[str, Any]] = [e.payload for e in growing_run(agents=3, rounds=3)]
    payloads.append(
        {
            "a": {"b": [long_text, {"c": long_list, "d": "short"}, [long_text]], 1: long_text},
            "e": long_list,
            "f": [[["deep", long_text]]],
            PACKED_KEY: [long_text],
            "g": {PACKED_KEY: long_text, "h": None, "i": 1.5, "j": True},
        }
    )
    found = 0
    for payload in payloads:
        walked = long_values(payload)
        want = list(candidates(payload))
        assert len(walked) == len(want)
        assert dict(walked) == dict(want)
        found += len(want)
    assert found > 10
