"""``maai fork`` (docs/forks.md): a fork is its parent up to the point, exactly; with no
change and ``--same-draws`` it goes on as the parent did; a change shows only after the
point; its prefix is checked against the parent's chain; bad input changes nothing."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore, StoredEvent
from maai.runtime.forks import check_prefix, scan_parent
from tests.support.examples import BUILT_IN

runner = CliRunner()

# The built-in experiments (tests/support/examples.py), each forked at every point of its
# run: a plug-in's forks are maai.testing's contract test (a fork at points spread over the run).
ARGUMENTS = {"frohlich": ["--seed", "3"]}  # the packaged default: Phase 1, then rounds and ballots
CONFIGS = {name: ARGUMENTS.get(name, []) for name in BUILT_IN}
EXAMPLE = {"frohlich": "default", "collaboration": "collaboration", "world": "world_pgg"}


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def _run(db: str, experiment: str) -> str:
    done = invoke("run", EXAMPLE[experiment], "--db", db, "-q", *CONFIGS[experiment])
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        return store.list_runs()[-1].run_id


@pytest.fixture(scope="module")
def parents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """One finished run of each experiment, each in its own ledger."""
    found = {}
    for experiment in CONFIGS:
        db = str(tmp_path_factory.mktemp(experiment) / "l.db")
        found[experiment] = (db, _run(db, experiment))
    return found


def _copy(tmp_path: Path, db: str) -> str:
    """A ledger of the parent's own, so that each test's forks do not meet."""
    target = tmp_path / "l.db"
    source = sqlite3.connect(db)
    dest = sqlite3.connect(target)
    source.backup(dest)
    source.close()
    dest.close()
    return str(target)


def _events(db: str, run_id: str) -> list[StoredEvent]:
    with EventStore.open(db) as store:
        return list(store.read(run_id))


def _newest(db: str) -> str:
    with EventStore.open(db) as store:
        return max(store.list_runs(), key=lambda r: r.created_at).run_id


def _logical(event: StoredEvent) -> str:
    """An event as compared across runs: all but the run id, its time and a call's
    measured latency."""
    payload = dict(event.payload)
    if isinstance(payload.get("answer"), dict):
        payload["answer"] = {k: v for k, v in payload["answer"].items() if k != "latency_ms"}
    return json.dumps([event.type, event.schema_version, payload, event.agent], sort_keys=True)


def _own(events: list[StoredEvent]) -> list[StoredEvent]:
    """A stretch of a run's history without its signing evidence (``run.signed``: each
    run signs its own checkpoints, where its appends fall)."""
    return [e for e in events if e.type != "run.signed"]


def _ledger_state(db: str) -> tuple[Any, ...]:
    lite = sqlite3.connect(db)
    try:
        return (
            lite.execute("SELECT run_id, status, head_seq FROM runs ORDER BY run_id").fetchall(),
            lite.execute("SELECT count(*), max(position) FROM events").fetchone(),
        )
    finally:
        lite.close()


@pytest.mark.parametrize("experiment", list(CONFIGS))
def test_a_fork_with_no_change_and_the_same_draws_goes_on_as_the_parent_did(
    parents: dict[str, tuple[str, str]], experiment: str, tmp_path: Path
) -> None:
    db, parent = parents[experiment]
    db = _copy(tmp_path, db)
    with EventStore.open(db) as store:
        points = scan_parent(store, parent).scan.points()
    assert points, f"{experiment} names no fork point"
    parent_events = _events(db, parent)
    for point in points:
        done = invoke("fork", parent, "--at", point.name, "--same-draws", "--db", db, "-q")
        assert done.exit_code == 0, done.output
        child = _newest(db)
        child_events = _events(db, child)
        upto = point.seq
        # The prefix: the parent's events, as stored (time included), under the child's id.
        for mine, theirs in zip(child_events[:upto], parent_events[:upto], strict=True):
            assert (mine.recorded_at, _logical(mine)) == (theirs.recorded_at, _logical(theirs))
        forked = child_events[upto]
        assert forked.type == "run.forked"
        assert forked.payload["parent_seq"] == upto
        assert forked.payload["parent_hash"] == parent_events[upto - 1].hash
        assert forked.payload["draws"] == "same"
        # After it, the parent's events again: concurrent answers may come in another order
        # (as in any two runs), so the events are compared as a multiset, and the order of
        # every agent's own events exactly.
        after, theirs_after = _own(child_events[upto + 1 :]), _own(parent_events[upto:])
        assert Counter(map(_logical, after)) == Counter(map(_logical, theirs_after)), point
        for agent in {e.agent for e in theirs_after}:
            assert [_logical(e) for e in after if e.agent == agent] == [
                _logical(e) for e in theirs_after if e.agent == agent
            ]
        with EventStore.open(db) as store:
            assert check_prefix(store, child) == []
    verified = invoke("verify", _newest(db), "--db", db)
    assert verified.exit_code == 0, verified.output
    audited = invoke("audit", "protocol", _newest(db), "--db", db)
    assert audited.exit_code == 0, audited.output


def test_a_change_shows_only_after_the_point_and_a_fork_of_a_fork_verifies(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    db, parent = parents["frohlich"]
    db = _copy(tmp_path, db)
    done = invoke(
        "fork", parent, "--at", "round:2", "--set", "agents.Bob.temperature=0.3", "--db", db, "-q"
    )
    assert done.exit_code == 0, done.output
    child = _newest(db)
    parent_events, child_events = _events(db, parent), _events(db, child)
    forked = next(e for e in child_events if e.type == "run.forked")
    upto = forked.seq - 1
    assert forked.payload["changes"] == {"agents.Bob.temperature": 0.3}
    assert forked.payload["draws"] == "own"
    assert [_logical(e) for e in child_events[:upto]] == [_logical(e) for e in parent_events[:upto]]
    bobs = [
        e.payload["request"]["temperature"]
        for e in child_events[upto:]
        if e.type == "model.requested" and e.agent == "Bob"
    ]
    assert bobs and set(bobs) == {0.3}
    assert all(
        e.payload["request"].get("temperature") != 0.3
        for e in parent_events
        if e.type == "model.requested" and e.agent == "Bob"
    )
    # A fork of the fork, created only, then resumed; replay and verify read all three.
    again = invoke("fork", child, "--at", "round:4", "--same-draws", "--no-run", "--db", db)
    assert again.exit_code == 0, again.output
    grandchild = _newest(db)
    resumed = invoke("resume", grandchild, "--db", db, "-q")
    assert resumed.exit_code == 0, resumed.output
    events = _events(db, grandchild)
    assert [e.type for e in events].count("run.forked") == 2
    bobs = [
        e.payload["request"]["temperature"]
        for e in events
        if e.type == "model.requested" and e.agent == "Bob" and e.seq > upto
    ]
    assert set(bobs) == {0.3}, "the grandchild keeps its parent's change"
    # The child draws from its own seed after the point: the audit of the draws follows.
    for run in (child, grandchild):
        for command in (
            ("verify", run),
            ("replay", run),
            ("audit", "protocol", run),
            ("audit", "leaks", run),
            ("audit", "votes", run),
            ("report", run, "-o", str(tmp_path / f"{run}.html")),
            ("export", run, "-f", "tables", "--out", str(tmp_path / run)),
        ):
            done = invoke(*command, "--db", db)
            assert done.exit_code == 0, (command, done.output)
    page = (tmp_path / f"{child}.html").read_text(encoding="utf-8")
    opening = page[page.index("The fork beside its parent") :]
    assert parent in opening and "round:2" in opening and "agents.Bob.temperature = 0.3" in opening


def test_editing_the_parents_prefix_makes_the_childs_verify_fail(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    db, parent = parents["collaboration"]
    db = _copy(tmp_path, db)
    done = invoke("fork", parent, "--at", "decision", "--same-draws", "--no-run", "--db", db)
    assert done.exit_code == 0, done.output
    child = _newest(db)
    assert invoke("verify", child, "--db", db).exit_code == 0
    lite = sqlite3.connect(db, isolation_level=None)
    triggers = lite.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
    ).fetchall()
    for name, _ in triggers:
        lite.execute(f"DROP TRIGGER {name}")
    # The parent's third event edited (as a writer with database access would).
    lite.execute(
        "UPDATE events SET payload = replace(payload, 'a', 'b') WHERE run_id = ? AND seq = 3",
        (parent,),
    )
    lite.close()
    broken = invoke("verify", child, "--db", db)
    assert broken.exit_code == 1
    assert f"parent run {parent}'s chain is broken at seq 3" in broken.output


def test_a_child_whose_prefix_was_rewritten_and_rehashed_fails_against_its_parent(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    db, parent = parents["collaboration"]
    db = _copy(tmp_path, db)
    receipt = str(tmp_path / "parent.json")
    assert invoke("receipt", parent, "-o", receipt, "--db", db).exit_code == 0
    assert invoke("fork", parent, "--at", "decision", "--no-run", "--db", db).exit_code == 0
    child = _newest(db)
    # The parent's receipt vouches for the child's prefix.
    held = invoke("verify", child, "--receipt", receipt, "--db", db)
    assert held.exit_code == 0, held.output
    with EventStore.open(db) as store:
        upto = next(e for e in store.read(child) if e.type == "run.forked").seq - 1
        rows = [(e.seq, e.payload) for e in store.read(child) if e.seq <= upto]
    # The child's own chain made whole again after an edit of its prefix: only the parent's
    # hash at the fork point tells.
    from maai.canonical import canonical_json
    from maai.ledger.envelope import GENESIS_HASH, envelope_hash

    lite = sqlite3.connect(db, isolation_level=None)
    for (name,) in lite.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
    ).fetchall():
        lite.execute(f"DROP TRIGGER {name}")
    stored = lite.execute(
        "SELECT seq, type, schema_version, payload, agent, recorded_at FROM events"
        " WHERE run_id = ? ORDER BY seq",
        (child,),
    ).fetchall()
    prev = GENESIS_HASH
    target = next(s[0] for s in stored if s[1] == "model.completed")
    for seq, type_, version, payload, agent, recorded in stored:
        if seq == target:
            payload = canonical_json({**json.loads(payload), "edited": True})
        digest = envelope_hash(
            run_id=child,
            seq=seq,
            type=type_,
            schema_version=version,
            payload_json=payload,
            agent=agent,
            recorded_at=recorded,
            prev_hash=prev,
        )
        lite.execute(
            "UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE run_id = ? AND seq = ?",
            (payload, prev, digest, child, seq),
        )
        prev = digest
    lite.close()
    assert rows  # the prefix was there to edit
    with EventStore.open(db) as store:
        assert store.verify_chain(child).ok
        problems = check_prefix(store, child)
    assert problems and "is not run" in problems[0]
    refused = invoke("verify", child, "--receipt", receipt, "--db", db)
    assert refused.exit_code == 1
    assert f"inherited seq {target} differs from the parent's receipt" in refused.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchrun", "--at", "phase2"], "nosuchrun"),
        (["{parent}", "--at", "seq:999999"], "past the run's head"),
        (["{parent}", "--at", "seq:2"], "not a boundary"),
        (["{parent}", "--at", "round:999"], "no such point"),
        (["{parent}", "--at", "phase2", "--set", "nosuch=1"], "no field 'nosuch'"),
        (["{parent}", "--at", "phase2", "--set", "agents.Nobody.model=x"], "no item named"),
        (["{parent}", "--at", "phase2", "--set", "phase2_rounds=-1"], "phase2_rounds"),
        (["{parent}", "--at", "phase2", "--set", "phase1_multiplier.low=0.1"], "Phase-1"),
        (["{parent}", "--at", "phase2", "--set", "agents=[]"], "number and names of agents"),
        (["{parent}", "--at", "phase2", "--seed", "1", "--same-draws"], "give one"),
        (["{parent}"], "--at POINT is needed"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_the_ledger_is_untouched(
    parents: dict[str, tuple[str, str]], tmp_path: Path, args: list[str], message: str
) -> None:
    db, parent = parents["frohlich"]
    db = _copy(tmp_path, db)
    before = _ledger_state(db)
    done = invoke("fork", *[a.format(parent=parent) for a in args], "--db", db)
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert len(done.output.strip().splitlines()) == 1, done.output
    assert _ledger_state(db) == before


def test_a_failed_creation_leaves_no_half_made_child(
    parents: dict[str, tuple[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's row and events are one transaction: a crash inside it (here, a store
    that fails on the last insert) leaves no run behind."""
    from maai.ledger import forking

    db, parent = parents["collaboration"]
    db = _copy(tmp_path, db)
    before = _ledger_state(db)
    real = forking._SQLITE_INSERT_EVENT
    monkeypatch.setattr(forking, "_SQLITE_INSERT_EVENT", real.replace("events", "no_such_table"))
    done = invoke("fork", parent, "--at", "decision", "--no-run", "--db", db)
    assert done.exit_code != 0
    assert _ledger_state(db) == before


def test_a_failed_run_forks_before_its_failure_and_a_running_one_at_a_boundary(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "l.db")
    parent = _run(db, "collaboration")
    lite = sqlite3.connect(db, isolation_level=None)
    lite.execute("UPDATE runs SET status = 'running' WHERE run_id = ?", (parent,))
    lite.close()
    done = invoke("fork", parent, "--at", "exchange:2", "--no-run", "--db", db)
    assert done.exit_code == 0, done.output
    assert "is running: forked at seq" in done.output

    # A run that failed (Ada's context window is too small for her decision) forks at a
    # point before its failure, and the fork, given a larger window, completes.
    import yaml

    from maai.configs import __file__ as configs_init

    config = yaml.safe_load((Path(configs_init).parent / "collaboration.yaml").read_text("utf-8"))
    config["agents"][0]["provider"] = {"context_window": 900, "max_output_tokens": 100}
    (tmp_path / "small.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    failed_db = str(tmp_path / "failed.db")
    assert invoke("run", str(tmp_path / "small.yaml"), "--db", failed_db, "-q").exit_code == 1
    with EventStore.open(failed_db) as store:
        (failed,) = store.list_runs()
    assert failed.status == "failed"
    fixed = "agents.Ada.provider.context_window=8000"
    done = invoke("fork", failed.run_id, "--at", "decision", "--set", fixed, "--db", failed_db)
    assert done.exit_code == 0, done.output
    with EventStore.open(failed_db) as store:
        statuses = {r.run_id: r.status for r in store.list_runs()}
    assert sorted(statuses.values()) == ["completed", "failed"]


def test_lineage_runs_tree_show_and_the_python_api(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    import maai

    db, parent = parents["collaboration"]
    db = _copy(tmp_path, db)
    done = invoke("fork", parent, "--at", "exchange:2", "--label", "arm=b", "--db", db, "-q")
    assert done.exit_code == 0, done.output
    child = _newest(db)
    listed = invoke("runs", "--label", "arm=b", "--db", db)
    assert [line.split()[0] for line in listed.output.splitlines()[1:]] == [child]
    assert invoke("fork", child, "--at", "decision", "--no-run", "--db", db).exit_code == 0
    grandchild = _newest(db)
    tree = invoke("runs", "--tree", "--db", db).output.splitlines()
    ids = [
        line.split()[0] if not line.lstrip().startswith("└") else line.split()[1] for line in tree
    ]
    assert ids[1:] == [parent, child, grandchild]
    assert tree[2].startswith("  └ ") and "(fork at exchange:2, seq" in tree[2]
    assert tree[3].startswith("    └ ") and "(fork at decision, seq" in tree[3]
    shown = invoke("show", child, "--db", db).output
    assert f"fork of {parent} at exchange:2" in shown
    assert f"forks: {grandchild}" in shown
    with maai.open(db) as ledger:
        run = ledger.run(child)
        assert run.parent == parent
        assert run.children == (grandchild,)
        assert run.fork_point is not None and run.fork_point[0] == "exchange:2"
        top = ledger.run(parent)
        assert (top.parent, top.fork_point, top.children) == (None, None, (child,))


def test_a_fork_on_postgresql_is_exact_and_verifies(postgres_url: str) -> None:
    """The copy on PostgreSQL, where payloads are JSONB and times timestamps: the prefix
    re-chains to the parent's hash, and the child runs to the same end."""
    EventStore.open(postgres_url, upgrade=True).close()
    done = invoke("run", "collaboration", "--db", postgres_url, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(postgres_url) as store:
        (parent,) = [r.run_id for r in store.list_runs()]
    forked = invoke("fork", parent, "--at", "decision", "--same-draws", "--db", postgres_url, "-q")
    assert forked.exit_code == 0, forked.output
    with EventStore.open(postgres_url) as store:
        child = max(store.list_runs(), key=lambda r: r.created_at).run_id
        assert check_prefix(store, child) == []
        parent_events, child_events = list(store.read(parent)), list(store.read(child))
    upto = next(e for e in child_events if e.type == "run.forked").seq - 1
    assert [(e.recorded_at, _logical(e)) for e in child_events[:upto]] == [
        (e.recorded_at, _logical(e)) for e in parent_events[:upto]
    ]
    assert Counter(map(_logical, _own(child_events[upto + 1 :]))) == Counter(
        map(_logical, _own(parent_events[upto:]))
    )
    verified = invoke("verify", child, "--db", postgres_url)
    assert verified.exit_code == 0, verified.output


KILLED_MID_FORK = """
import sys, time
from sqlalchemy.engine import Connection
from maai.cli.app import app

real = Connection.exec_driver_sql
calls = []

def slow(self, statement, *args, **kwargs):
    result = real(self, statement, *args, **kwargs)
    if statement.startswith("INSERT INTO runs"):
        print("inside", flush=True)  # the run row is written, its transaction still open
        time.sleep(60)
    return result

Connection.exec_driver_sql = slow
sys.argv = ["maai", "fork", sys.argv[1], "--at", "decision", "--no-run", "--db", sys.argv[2]]
app()
"""


def test_kill_9_during_creation_leaves_no_half_made_child(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    db, parent = parents["collaboration"]
    db = _copy(tmp_path, db)
    before = _ledger_state(db)
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_MID_FORK, parent, db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip() == "inside", process.stderr.read() if process.stderr else ""
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert _ledger_state(db) == before
    # And the ledger takes the next fork as if nothing had happened.
    assert invoke("fork", parent, "--at", "decision", "--no-run", "--db", db).exit_code == 0


def test_a_forks_tables_hold_what_followed_the_point_unless_asked(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    """The CLI's tables and the Python API's agree: by default what followed the point,
    with the prefix each row marked; a fork given labels of its own (the prefix has the
    parent's) still finds its inherited rows; the API's frames are typed by the schema."""
    import csv

    import maai

    db, parent = parents["frohlich"]
    db = _copy(tmp_path, db)
    done = invoke("fork", parent, "--at", "phase2", "--label", "arm=b", "--db", db, "-q")
    assert done.exit_code == 0, done.output
    child = _newest(db)

    def table(name: str, *flags: str) -> list[dict[str, str]]:
        out = tmp_path / f"{''.join(flags) or 'own'}"
        if not out.exists():
            done = invoke("export", child, "-f", "tables", "--out", str(out), *flags, "--db", db)
            assert done.exit_code == 0, done.output
        with (out / f"{name}.csv").open(encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    own, whole = table("choices"), table("choices", "--with-prefix")
    forked_at = next(e.seq for e in _events(db, child) if e.type == "run.forked")
    # Phase 1's choices are the parent's: none is the fork's own.
    assert whole and all(int(r["seq"]) < forked_at for r in whole)
    assert own == []
    assert {r["inherited"] for r in whole} == {"true"}
    assert {r["arm"] for r in whole} == {"b"}
    # Rankings: Phase 1's are inherited, the one after Phase 2 (2.3) is the fork's own.
    rankings = table("rankings", "--with-prefix")
    assert {(r["step"] == "2.3", r["inherited"]) for r in rankings} == {
        (False, "true"),
        (True, "false"),
    }
    assert [r["seq"] for r in table("rankings")] == [
        r["seq"] for r in rankings if r["inherited"] == "false"
    ]

    with maai.open(db) as ledger:
        run = ledger.run(child)
    frames, with_prefix = run.tables(), run.tables(with_prefix=True)
    assert len(frames["choices"]) == 0 and len(with_prefix["choices"]) == len(whole)
    ranked = with_prefix["rankings"]
    assert str(ranked["inherited"].dtype) == "boolean"
    assert [str(v) for v in ranked["inherited"]] == [
        {"true": "True", "false": "False"}[r["inherited"]] for r in rankings
    ]
    assert "inherited" not in frames["rankings"].columns
    assert [int(s) for s in frames["rankings"]["seq"]] == [
        int(r["seq"]) for r in rankings if r["inherited"] == "false"
    ]
    # Typed as the Parquet export: nullable ints, categories, booleans, numbers.
    payoffs = with_prefix["payoffs"]
    assert str(payoffs["seq"].dtype) == "Int64"
    assert str(payoffs["round"].dtype) == "Int64" and payoffs["round"].isna().any()
    assert str(payoffs["run_id"].dtype) == "category"
    assert str(payoffs["constraint_satisfied"].dtype) == "boolean"
    assert str(payoffs["multiplier"].dtype) == "float64"
    assert str(payoffs["income"].dtype) == "Int64"
    assert str(payoffs["hash"].dtype) == "string"
    # A run that is no fork: every row, no inherited column.
    with maai.open(db) as ledger:
        top = ledger.run(parent).tables(with_prefix=True)
    assert "inherited" not in top["rankings"].columns
    assert len(top["choices"]) == len(whole)

    # The JSON export and the transcript say what of the fork is inherited.
    log = invoke("export", child, "--db", db)
    assert log.exit_code == 0, log.output
    assert json.loads(log.output)["fork"] == {
        "parent_run": parent,
        "point": "phase2",
        "parent_seq": forked_at - 1,
        "forked_seq": forked_at,
        "inherited_seqs": [1, forked_at - 1],
    }
    transcript = invoke("export", child, "-f", "transcript", "--db", db).output
    assert transcript.startswith(f"> A fork of run {parent} at phase2: its events 1 to ")
    plain = invoke("export", parent, "--db", db)
    assert "fork" not in json.loads(plain.output)


def test_a_fork_of_a_fork_before_its_parents_point_verifies(
    parents: dict[str, tuple[str, str]], tmp_path: Path
) -> None:
    """A grandchild forked at a point inside its parent's inherited prefix holds none of the
    parent's run.forked: its prefix's signing evidence is the grandparent's, found through
    the parent's lineage, and verify holds."""
    db, parent = parents["collaboration"]
    db = _copy(tmp_path, db)
    assert invoke("fork", parent, "--at", "decision", "--db", db, "-q").exit_code == 0
    child = _newest(db)
    done = invoke("fork", child, "--at", "exchange:2", "--no-run", "--db", db)
    assert done.exit_code == 0, done.output
    grandchild = _newest(db)
    events = _events(db, grandchild)
    forked = [e for e in events if e.type == "run.forked"]
    assert len(forked) == 1 and forked[0].payload["parent_run"] == child
    assert any(e.type == "run.signed" and e.seq < forked[0].seq for e in events)
    verified = invoke("verify", grandchild, "--db", db)
    assert verified.exit_code == 0, verified.output
    resumed = invoke("resume", grandchild, "--db", db, "-q")
    assert resumed.exit_code == 0, resumed.output
    assert invoke("verify", grandchild, "--db", db).exit_code == 0
