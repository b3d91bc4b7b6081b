"""A stored event that this code cannot decode stops ``load_state`` with
``UnreadableHistoryError`` naming its seq and type, whichever way the fold reads it (a
short payload validated from its JSON text, a request read as its header, a long payload
read whole), and never folds a wrong state instead."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from maai.domain.experiments import parse_config
from maai.ledger import EventStore
from maai.runtime.engine import Engine
from maai.runtime.executors import LiveExecutor
from maai.runtime.fold import UnreadableHistoryError, load_state
from maai.runtime.runs import start_run
from tests.e2e.test_linear_storage import discussion
from tests.runtime.test_run_row_trust import tamper


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fold-unreadable") / "ledger.db"
    config = parse_config(discussion(agents=3, rounds=4))[1]  # long enough for long answers
    with EventStore.open(str(path)) as store:
        start_run(store, config, run_id="r")
        asyncio.run(Engine(store, "r", LiveExecutor(config), signer=None).run())
    return path


def _copy(recorded: Path, tmp_path: Path) -> str:
    db = tmp_path / "l.db"
    with sqlite3.connect(recorded) as original, sqlite3.connect(db) as copy:
        original.backup(copy)
    return str(db)


def _first_seq(db: str, type_: str, *, long: bool = False) -> int:
    size = "length(payload) >= 4096" if long else "length(payload) < 4096"
    with sqlite3.connect(db) as lite:
        row = lite.execute(
            f"SELECT min(seq) FROM events WHERE run_id = 'r' AND type = ? AND {size}", (type_,)
        ).fetchone()
    assert row[0] is not None, type_
    return int(row[0])


def _unreadable(db: str, seq: int, type_: str, change: str) -> str:
    tamper(db, f"UPDATE events SET {change} WHERE run_id = 'r' AND seq = {seq}")
    with EventStore.open(db) as store, pytest.raises(UnreadableHistoryError) as raised:
        load_state(store, "r")
    message = str(raised.value)
    assert f"seq {seq} ({type_}) cannot be read" in message, message
    return message


def test_a_short_payload_that_does_not_fit_its_event(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    seq = _first_seq(db, "statement.made")
    _unreadable(db, seq, "statement.made", """payload = '{"nonsense":1}'""")


def test_a_short_payload_with_a_value_of_the_wrong_type(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    seq = _first_seq(db, "statement.made")
    _unreadable(db, seq, "statement.made", "payload = json_set(payload, '$.round', 'two')")


def test_an_answer_that_does_not_fit(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    seq = _first_seq(db, "model.completed")
    _unreadable(db, seq, "model.completed", "payload = json_remove(payload, '$.answer.text')")


def test_a_payload_read_whole_that_does_not_fit(recorded: Path, tmp_path: Path) -> None:
    """One that is long or stored as differences (parsed and unpacked, not given as text)."""
    db = _copy(recorded, tmp_path)
    with sqlite3.connect(db) as lite:
        seq, type_ = lite.execute(
            "SELECT seq, type FROM events WHERE run_id = 'r' AND type != 'model.requested'"
            """ AND (length(payload) >= 4096 OR instr(payload, '"$packed":') > 0)"""
            " AND json_type(payload, '$.agent') = 'text' ORDER BY seq LIMIT 1"
        ).fetchone()
    _unreadable(db, seq, type_, "payload = json_set(payload, '$.agent', 7)")


def test_an_unknown_event_type(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    seq = _first_seq(db, "statement.made")
    message = _unreadable(db, seq, "shout.made", "type = 'shout.made'")
    assert "unknown event type" in message


def test_a_newer_schema_version(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    seq = _first_seq(db, "statement.made")
    message = _unreadable(db, seq, "statement.made", "schema_version = 99")
    assert "newer than this code" in message


def test_a_request_of_another_schema_version(recorded: Path, tmp_path: Path) -> None:
    db = _copy(recorded, tmp_path)
    seq = _first_seq(db, "model.requested", long=True)
    _unreadable(db, seq, "model.requested", "schema_version = 2")
