"""``maai.open`` and ``maai runs`` read a run's experiment, config and labels from its hashed
``run.started``, never from the ``runs`` row, and refuse (or warn about) a broken chain: an
edited row or an edited event never comes back as if it were the run's."""

from __future__ import annotations

import json
import shutil
import sqlite3
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maai
from maai.cli.app import app
from maai.ledger import ChainBrokenError
from tests.api.conftest import HIGH, LOW, Sample
from tests.runtime.adversary import Adversary


@pytest.fixture
def copy(sample: Sample, tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    shutil.copy(sample.path, path)
    return path


def runs(path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["runs", "--db", str(path), *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_row_edited_to_other_labels_and_config_is_not_believed(copy: Path) -> None:
    lite = sqlite3.connect(copy, isolation_level=None)
    (text,) = lite.execute("SELECT config FROM runs WHERE run_id = ?", (HIGH,)).fetchone()
    config = json.loads(text)
    config["labels"] = {"condition": "forged"}
    config["seed"] = 999
    lite.execute(
        "UPDATE runs SET config = ?, kind = 'other' WHERE run_id = ?", (json.dumps(config), HIGH)
    )
    lite.close()
    code, out, _ = runs(copy, "--label", "condition=high", "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [HIGH]
    assert json.loads(out)[0]["experiment"] == "frohlich"
    code, out, _ = runs(copy, "--label", "condition=forged", "--json")
    assert code == 0 and json.loads(out) == []
    with maai.open(copy) as ledger:
        run = ledger.run(HIGH)
        assert run.labels == {"condition": "high"} and run.config["seed"] != 999
        assert run.experiment.name == "frohlich"
        assert [r.id for r in ledger.runs(labels={"condition": "high"})] == [HIGH]


def test_an_edited_event_is_refused_unless_asked_for_and_then_warned_about(copy: Path) -> None:
    adversary = Adversary(str(copy))
    seq = adversary.seqs(LOW, "payoff.awarded")[0]
    adversary.sql(
        "UPDATE events SET payload = json_set(payload, '$.payoff_cents', 999999900) "
        "WHERE run_id = ? AND seq = ?",
        (LOW, seq),
    )
    with maai.open(copy) as ledger:
        with pytest.raises(ChainBrokenError, match=f"hash chain broken at seq {seq}"):
            ledger.run(LOW)
        with pytest.warns(UserWarning, match=f"hash chain broken at seq {seq}"):
            forensic = ledger.run(LOW, check=False)
        assert forensic.id == LOW


def test_an_edited_run_started_gives_no_labels_and_a_warning(copy: Path) -> None:
    Adversary(str(copy)).sql(
        "UPDATE events SET payload = json_set(payload, '$.config.labels.condition', 'forged') "
        "WHERE run_id = ? AND seq = 1",
        (HIGH,),
    )
    code, out, err = runs(copy, "--label", "condition=forged")
    assert code == 0 and out == ""
    assert f"warning: run {HIGH}: its run.started does not hold to its hash" in err
    with maai.open(copy) as ledger, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ledger.runs(labels={"condition": "forged"}) == []
    assert any("does not hold to its hash" in str(w.message) for w in caught)
