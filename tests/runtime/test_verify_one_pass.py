"""``maai verify`` checks the hash chain in the same pass as the protocol
(``runtime.verify.ChainCheck``): whatever is done to a ledger, it reports exactly what the
store's own check (``EventStore.verify_chain``) reports, and the protocol never sees an event
the chain does not vouch for."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from maai.canonical import canonical_json
from maai.cli.app import app
from maai.ledger import EventStore, envelope_hash
from maai.runtime.fold import FOLD_KEEPS_PACKED
from maai.runtime.verify import ChainCheck
from tests.runtime.test_run_row_trust import tamper

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    db = tmp_path_factory.mktemp("one-pass") / "l.db"
    done = invoke("run", "collaboration", "--db", str(db), "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(str(db)) as store:
        (run,) = store.list_runs()
    return db, run.run_id


REHASH = "re-hash the first points.awarded"


def tampered(tmp_path: Path, recorded: tuple[Path, str], *statements: str) -> tuple[str, str]:
    source, run_id = recorded
    db = tmp_path / "l.db"
    with sqlite3.connect(source) as original, sqlite3.connect(db) as copy:
        original.backup(copy)
    tamper(str(db), *(s.format(run=run_id) for s in statements if s != REHASH))
    if REHASH in statements:
        rehash_points(str(db), run_id)
    return str(db), run_id


def rehash_points(db: str, run_id: str) -> None:
    """As an adversary who knows the hash recipe would: a point added to the first
    points.awarded, stored as canonical text and its own hash recomputed (the next event's
    link left as it was)."""
    with sqlite3.connect(db) as lite:
        seq, type_, version, text, agent, recorded_at, prev_hash = lite.execute(
            "SELECT seq, type, schema_version, payload, agent, recorded_at, prev_hash"
            " FROM events WHERE run_id = ? AND type = 'points.awarded' ORDER BY seq LIMIT 1",
            (run_id,),
        ).fetchone()
        payload = json.loads(text)
        payload["points"] = {name: points + 1 for name, points in payload["points"].items()}
        text = canonical_json(payload)
        digest = envelope_hash(
            run_id=run_id,
            seq=seq,
            type=type_,
            schema_version=version,
            payload_json=text,
            agent=agent,
            recorded_at=recorded_at,
            prev_hash=prev_hash,
        )
        lite.execute(
            "UPDATE events SET payload = ?, hash = ? WHERE run_id = ? AND seq = ?",
            (text, digest, run_id, seq),
        )


EDITS = {
    "intact": (),
    "an edited payload": (
        """UPDATE events SET payload = replace(payload, ':"collaborative"', ':"individual"') """
        "WHERE run_id = '{run}' AND type = 'points.awarded'",
    ),
    # The same values in another JSON text: the hash covers the canonical text of the values,
    # so the chain holds (the stored text no longer hashes to it: re-encoded, it does).
    "a payload re-spaced": (
        """UPDATE events SET payload = replace(payload, '":', '": ') """
        "WHERE run_id = '{run}' AND type = 'points.awarded'",
    ),
    # Caught at the next event's link, which still names the hash it was recorded with.
    "an event edited and re-hashed": (REHASH,),
    "an edited hash": ("UPDATE events SET hash = 'ab' || substr(hash, 3) WHERE seq = 7",),
    "an edited link": ("UPDATE events SET prev_hash = 'ab' || substr(prev_hash, 3) WHERE seq = 9",),
    "an edited time": (
        "UPDATE events SET recorded_at = '2020-01-01 00:00:00.000000' WHERE seq = 12",
    ),
    "a deleted event": ("DELETE FROM events WHERE run_id = '{run}' AND seq = 20",),
    "a deleted tail": ("DELETE FROM events WHERE run_id = '{run}' AND seq > 30",),
    "events beyond the head": ("UPDATE runs SET head_seq = 25 WHERE run_id = '{run}'",),
    "an event that cannot be parsed": (
        "UPDATE events SET payload = '{{\"half' WHERE run_id = '{run}' AND seq = 15",
    ),
    "a broken run.started": (
        "UPDATE events SET payload = '{{\"nonsense\": 1}}' WHERE run_id = '{run}' AND seq = 1",
    ),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_one_pass_reports_what_the_stores_check_reports(
    tmp_path: Path, recorded: tuple[Path, str], edit: str
) -> None:
    db, run_id = tampered(tmp_path, recorded, *EDITS[edit])
    with EventStore.open(db) as store:
        expected = store.verify_chain(run_id)
        checked = ChainCheck(
            run_id, store.head(run_id), store.read(run_id, keep_packed=FOLD_KEEPS_PACKED)
        )
        given = [record.seq for record in checked]
        assert checked.report() == expected
        # Hashing the stored text (what `maai verify` reads) reports the same as re-encoding
        # the parsed payloads.
        by_text = ChainCheck(
            run_id,
            store.head(run_id),
            store.read(run_id, keep_packed=FOLD_KEEPS_PACKED, keep_text=True),
        )
        assert [record.seq for record in by_text] == given
        assert by_text.report() == expected
    assert expected.ok == (edit in ("intact", "a payload re-spaced"))
    if edit == "an event edited and re-hashed":
        assert expected.reason == "prev_hash does not match the previous event's hash"
    # The events given are those before the first break, each once, in order.
    last_good = expected.head_seq if expected.ok else expected.first_bad_seq - 1
    assert given == list(range(1, last_good + 1))
    result = invoke("verify", run_id, "--db", db)
    if expected.ok:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1
        assert (
            f"hash chain broken at seq {expected.first_bad_seq}: {expected.reason}" in result.stderr
        ), result.stderr
        assert "divergence" not in result.stderr


def test_a_reader_that_stops_early_still_gets_the_whole_chain_checked(
    tmp_path: Path, recorded: tuple[Path, str]
) -> None:
    db, run_id = tampered(tmp_path, recorded, *EDITS["an edited hash"])
    with EventStore.open(db) as store:
        checked = ChainCheck(
            run_id, store.head(run_id), store.read(run_id, keep_packed=FOLD_KEEPS_PACKED)
        )
        first = next(iter(checked))
        assert first.seq == 1
        report = checked.report()
    assert not report.ok and report.first_bad_seq == 7
