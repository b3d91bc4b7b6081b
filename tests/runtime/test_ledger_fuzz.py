"""Verify and the audits never crash on a ledger, whatever its content (docs/operations.md,
"Edited ledgers"): 200 random single-event edits of a real run of each experiment (a field
deleted, a type changed, a list shortened or lengthened, a number out of range, odd unicode),
the chain re-hashed each time so that only the content checks see the edit. Each check ends
with a report, never an exception; and verify or the protocol audit flags every edit that
changed what the run says. Run in process (one subprocess per edit would take minutes); a
few edits through the CLI prove the exit code and that no traceback is printed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maai.canonical import canonical_json
from maai.cli.app import app
from maai.domain.events import RunStarted
from maai.ledger import EventStore, StoredEvent
from maai.projections.history import History, UnreadableEventError, history_from_stored
from maai.runtime.config_files import read_config
from maai.runtime.verify import verify_events
from tests.e2e.runs import run_in_process, write_config
from tests.runtime.test_run_row_trust import tamper
from tests.support.ledger_edits import edited_runs, rechained

REPO = Path(__file__).resolve().parents[2]
EDITS = 200


def _world_config(path: Path) -> Path:
    import yaml

    data = read_config(REPO / "configs" / "world_pgg.yaml")
    data["max_ticks"] = 6
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _config(folder: Path, experiment: str) -> Path:
    if experiment == "frohlich":
        return write_config(folder / "frohlich.yaml", agents=2, rounds=1)
    if experiment == "collaboration":
        base = REPO / "configs" / "collaboration.yaml"
        return write_config(folder / "collaboration.yaml", agents=2, rounds=2, base=base)
    return _world_config(folder / "world.yaml")


_RECORDED: dict[str, Any] = {}


def _recorded(experiment: str, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A real run of ``experiment``, recorded once per process and shared by every test."""
    if experiment not in _RECORDED:
        folder = tmp_path_factory.mktemp(f"fuzz-{experiment}")
        db = str(folder / "ledger.db")
        run_id = run_in_process(_config(folder, experiment), db)
        with EventStore.open(db) as store:
            records = list(store.read(run_id))
        _RECORDED[experiment] = experiment, db, run_id, records
    return _RECORDED[experiment]


@pytest.fixture(scope="module", params=["frohlich", "collaboration", "world"])
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _recorded(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def recorded_frohlich(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Only Frohlich has votes."""
    return _recorded("frohlich", tmp_path_factory)


def _audits(history: History) -> list[bool]:
    """What the audit commands conclude (``True``: ok), as ``maai audit`` computes it."""
    assert history.experiment is not None
    views = history.experiment.views()
    verdicts = [views.audit_protocol(history).ok, views.audit_leaks(history).ok]
    if views.audit_votes(history) is not None:
        verdicts.append(not views.vote_problems(history))  # type: ignore[attr-defined]
    return verdicts


def test_the_recorded_runs_pass_every_check(recorded: Any) -> None:
    _, _, run_id, records = recorded
    assert verify_events(iter(records)).ok
    assert all(_audits(history_from_stored(run_id, records)))


@pytest.mark.slow  # 200 edits, each verified and audited: 10-40 s per experiment
def test_no_edit_crashes_verify_or_an_audit(recorded: Any) -> None:
    experiment, _, run_id, records = recorded
    seed = {"frohlich": 1, "collaboration": 2, "world": 3}[experiment]
    unflagged = []
    for what, edited in edited_runs(records, EDITS, seed):
        # Any exception escaping here fails the test with the edit named.
        try:
            verified = verify_events(iter(edited))
            try:
                history = history_from_stored(run_id, edited)
            except UnreadableEventError:
                audited = False  # the audits report the event they cannot read
            else:
                audited = all(_audits(history))
        except Exception as exc:
            raise AssertionError(f"{experiment}: {what}: {type(exc).__name__}: {exc}") from exc
        if verified.ok and audited and _changes_the_record(records, edited):
            unflagged.append(what)
    assert not unflagged, f"{experiment}: edits no check saw: {unflagged}"


def _changes_the_record(records: list[StoredEvent], edited: list[StoredEvent]) -> bool:
    """Whether the edit changed what the run says: not a value its event type leaves out or
    fills in with the same default when decoded, nor one no content check can judge (a
    provider's raw response, the time a call took, the simulated persona behind an answer)."""
    before, after = history_from_stored("a", records), history_from_stored("b", edited)
    if _meaningful(_dumped(before.config), _dumped(after.config)):
        return True
    return any(
        _meaningful(old.event.model_dump(mode="json"), new.event.model_dump(mode="json"))
        for old, new in zip(before.entries, after.entries, strict=True)
        if not isinstance(old.event, RunStarted)
    )


def _dumped(config: Any) -> Any:
    return None if config is None else config.model_dump(mode="json")


COSMETIC = ("raw", "latency_ms", "usage", "provenance", "finish_reason", "model", "persona")


def _meaningful(old: Any, new: Any) -> bool:
    if isinstance(old, dict) and isinstance(new, dict):
        return any(
            _meaningful(old.get(k), new.get(k))
            for k in set(old) | set(new)
            if k not in COSMETIC and old.get(k) != new.get(k)
        )
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return any(_meaningful(a, b) for a, b in zip(old, new, strict=True))
    return bool(old != new)


# Through the CLI: the exit code, a report, and never a traceback.


def _edit_in_store(db: str, run_id: str, seq: int, edit: Any) -> None:
    """Edit event ``seq``'s payload in the store, and re-hash the chain from there on."""
    with EventStore.open(db) as store:
        records = list(store.read(run_id))
    records[seq - 1] = records[seq - 1].model_copy(
        update={"payload": edit(json.loads(canonical_json(records[seq - 1].payload)))}
    )
    tamper(db)  # the append-only triggers dropped, as an adversary with write access would
    with sqlite3.connect(db) as lite:
        for record in rechained(records)[seq - 1 :]:
            lite.execute(
                "UPDATE events SET payload = ?, hash = ?, prev_hash = ? WHERE run_id = ? "
                "AND seq = ?",
                (
                    canonical_json(record.payload),
                    record.hash,
                    record.prev_hash,
                    run_id,
                    record.seq,
                ),
            )


def _first(records: list[StoredEvent], type_: str, where: Any = lambda p: True) -> int:
    return next(r.seq for r in records if r.type == type_ and where(r.payload))


WORLD_AGENTS = ("Alice", "Bob", "Carla", "Dan", "Mona")  # configs/worlds/village_hall.yaml


def _absent(payload: dict[str, Any]) -> list[str]:
    return [name for name in WORLD_AGENTS if name not in payload.get("witnesses", [])]


def _extra_witness(payload: dict[str, Any]) -> dict[str, Any]:
    """An agent who was elsewhere, added to an action's witnesses."""
    return {**payload, "witnesses": [*payload["witnesses"], _absent(payload)[0]]}


def _without(key: str) -> Any:
    return lambda payload: {k: v for k, v in payload.items() if k != key}


CLI_EDITS = {
    # The known crash: zip() in the world's protocol on an action with an extra witness.
    "world": ("world.action", lambda p: p.get("kind") == "speak" and _absent(p), _extra_witness),
    "frohlich": ("payoff.awarded", lambda p: True, _without("income")),
    "collaboration": ("belief.stated", lambda p: True, lambda p: {**p, "belief": "high"}),
}


def test_edited_ledgers_end_every_command_with_a_report_and_exit_1(
    recorded: Any, tmp_path: Path
) -> None:
    experiment, source, run_id, records = recorded
    db = str(tmp_path / "edited.db")
    with sqlite3.connect(source) as original, sqlite3.connect(db) as copy:
        original.backup(copy)
    type_, where, edit = CLI_EDITS[experiment]
    _edit_in_store(db, run_id, _first(records, type_, where), edit)
    # verify and the protocol audit must see the edit; the leak and vote audits, which judge
    # other things, must end with their report (exit 1 only if they see something).
    commands = {("verify",): {1}, ("audit", "protocol"): {1}, ("audit", "leaks"): {0, 1}}
    if experiment == "frohlich":
        commands["audit", "votes"] = {0, 1}
    runner = CliRunner()
    for command, codes in commands.items():
        result = runner.invoke(app, [*command, run_id, "--db", db], env={"COLUMNS": "200"})
        assert "Traceback" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{command}: {result.exception!r}"
        )
        assert result.exit_code in codes, f"{command}: {result.output}"
        assert result.output.strip(), f"{command}: printed nothing"


def test_votes_that_cannot_be_read_end_with_a_finding_and_exit_1(
    recorded_frohlich: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the fuzz did not reach: an edit the vote table cannot be built from."""
    _, db, run_id, _ = recorded_frohlich
    from maai.projections.frohlich import votes

    def unreadable(history: Any) -> Any:
        raise KeyError("zed")

    monkeypatch.setattr(votes, "vote_audit", unreadable)
    result = CliRunner().invoke(app, ["audit", "votes", run_id, "--db", db])
    assert result.exit_code == 1, result.output
    assert "the votes cannot be read: KeyError" in result.output
