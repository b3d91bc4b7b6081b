"""A study from a fork point (docs/forks.md, docs/studies.md): every run is a fork of one
stored run at one point, its factors applied after the point; the runs table names the
parent, the point and the calls the study did not make again."""

from __future__ import annotations

import csv
from pathlib import Path

from typer.testing import CliRunner, Result

from maai.cli.app import app
from maai.ledger import EventStore

runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def _parent(db: str) -> str:
    done = invoke("run", "collaboration", "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        return store.list_runs()[0].run_id


def _study(folder: Path, parent: str, factors: str, at: str = "exchange:2") -> Path:
    path = folder / "forked.yaml"
    path.write_text(
        f"study: forked\nfork: {{from: {parent}, at: '{at}'}}\n"
        f"factors:\n{factors}\nreplicates: 2\nconcurrency: 2\n",
        encoding="utf-8",
    )
    return path


def test_a_study_from_a_fork_point_shares_the_prefix_and_counts_what_it_did_not_pay(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "l.db")
    parent = _parent(db)
    study = _study(tmp_path, parent, "  agents[name=Ben].temperature: [0.2, 0.9]", "exchange:3")
    done = invoke("study", "run", str(study), "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        parent_events = list(store.read(parent))
        forks = [r.run_id for r in store.list_runs() if r.run_id.startswith("forked.")]
        assert len(forks) == 4
        for run_id in forks:
            events = list(store.read(run_id))
            forked = next(e for e in events if e.type == "run.forked")
            upto = forked.seq - 1
            assert [(e.type, e.payload) for e in events[:upto]] == [
                (e.type, e.payload) for e in parent_events[:upto]
            ]
            assert forked.payload["point"] == "exchange:3"
    out = tmp_path / "out"
    exported = invoke("study", "export", "forked", "--db", db, "--out", str(out))
    assert exported.exit_code == 0, exported.output
    with (out / "runs.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["parent_run"] for r in rows} == {parent}
    assert {r["fork_point"] for r in rows} == {"exchange:3"}
    inherited = sum(1 for e in parent_events[:upto] if e.type == "model.completed")
    assert inherited > 0
    assert {int(r["inherited_calls"]) for r in rows} == {inherited}
    assert all(int(r["calls"]) > inherited for r in rows)

    # The runs' tables hold what each did after the point: the initial beliefs are the
    # parent's, in no replicate; with --with-prefix each run's are there, marked.
    def beliefs(folder: Path) -> list[dict[str, str]]:
        with (folder / "beliefs.csv").open(encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    own = beliefs(out)
    assert own and all(int(r["seq"]) > upto for r in own)
    assert {r["run_id"] for r in own} == set(forks)
    whole_out = tmp_path / "whole"
    exported = invoke(
        "study", "export", "forked", "--db", db, "--out", str(whole_out), "--with-prefix"
    )
    assert exported.exit_code == 0, exported.output
    whole = beliefs(whole_out)
    assert {(int(r["seq"]) <= upto, r["inherited"]) for r in whole} == {
        (True, "true"),
        (False, "false"),
    }
    assert [r for r in whole if r["inherited"] == "false"] == [
        {**r, "inherited": "false"} for r in own
    ]
    import pyarrow.parquet as pq

    table = pq.read_table(whole_out / "beliefs.parquet")
    assert str(table.schema.field("inherited").type) == "bool"
    # export --all: the study's folder, filtered the same way.
    every = tmp_path / "every"
    assert invoke("export", "--all", "-f", "tables", "--out", str(every), "--db", db).exit_code == 0
    assert beliefs(every / "study-forked") == own


def test_a_factor_the_experiment_refuses_after_the_point_is_one_line_exit_2(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "l.db")
    parent = _parent(db)
    study = _study(tmp_path, parent, "  agents[name=Ben].u_value: [0.2, 0.9]")
    before = [(r.run_id, r.head_seq) for r in EventStore.open(db).list_runs()]
    done = invoke("study", "run", str(study), "--db", db, "-q")
    assert done.exit_code == 2, done.output
    assert "agents.Ben.u_value: cannot change after exchange:2" in done.output
    assert [(r.run_id, r.head_seq) for r in EventStore.open(db).list_runs()] == before


def test_every_run_of_a_base_study_is_forked_at_the_point(tmp_path: Path) -> None:
    """``fork: {study: BASE, at: POINT}``: each run of the base study is a parent, its
    cells and replicates planned for each, with run ids that name the parent's place."""
    db = str(tmp_path / "l.db")
    base = tmp_path / "base.yaml"
    base.write_text("study: first\nbase: collaboration\nreplicates: 2\n", encoding="utf-8")
    done = invoke("study", "run", str(base), "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        parents = sorted(r.run_id for r in store.list_runs())
    assert len(parents) == 2
    study = tmp_path / "then.yaml"
    study.write_text(
        "study: then\nfork: {study: first, at: 'exchange:3'}\n"
        "factors:\n  agents[name=Ben].temperature: [0.2, 0.9]\n",
        encoding="utf-8",
    )
    done = invoke("study", "run", str(study), "--db", db, "-q")
    assert done.exit_code == 0, done.output
    with EventStore.open(db) as store:
        forks = {r.run_id: r.status for r in store.list_runs() if r.run_id.startswith("then.")}
        assert sorted(forks) == [f"then.p{k}.c{c}.r1" for k in (1, 2) for c in (1, 2)]
        assert set(forks.values()) == {"completed"}
        for run_id in forks:
            forked = next(e for e in store.read(run_id) if e.type == "run.forked")
            assert forked.payload["parent_run"] == parents[int(run_id.split(".")[1][1:]) - 1]
    missing = tmp_path / "missing.yaml"
    missing.write_text("study: x\nfork: {study: nosuch, at: 'exchange:3'}\n", encoding="utf-8")
    refused = invoke("study", "run", str(missing), "--db", db, "-q")
    assert refused.exit_code == 2, refused.output
    assert "no runs of study 'nosuch' in the ledger" in refused.output
    both = tmp_path / "both.yaml"
    both.write_text(
        f"study: y\nfork: {{study: first, from: {parents[0]}, at: 'exchange:3'}}\n",
        encoding="utf-8",
    )
    refused = invoke("study", "run", str(both), "--db", db, "-q")
    assert refused.exit_code == 2, refused.output
    assert "either `from: RUN_ID` or `study: BASE_STUDY`" in refused.output
