"""``maai export`` never overwrites an existing file (``-o FILE``) nor writes into a folder
that is not empty (``--out DIR``) without ``--force``: one line naming it, exit 2, and the
file or folder left as it was. Frohlich's engine run serves: the refusal is the export
command's, whatever the experiment."""

from __future__ import annotations

from pathlib import Path

from tests.projections.conftest import ENGINE_RUN
from tests.projections.export_cli import invoke, one_error


def test_an_existing_output_file_is_not_overwritten(engine_ledger: str, tmp_path: Path) -> None:
    target = tmp_path / "log.json"
    target.write_text("my notes\n", encoding="utf-8")
    for fmt in ("json", "transcript"):
        result = invoke("export", ENGINE_RUN, "--db", engine_ledger, "-f", fmt, "-o", str(target))
        assert result.exit_code == 2
        line = one_error(result)
        assert str(target) in line and "already exists" in line and "--force" in line
        assert target.read_text(encoding="utf-8") == "my notes\n"


def test_force_overwrites_the_file(engine_ledger: str, tmp_path: Path) -> None:
    target = tmp_path / "log.json"
    target.write_text("my notes\n", encoding="utf-8")
    result = invoke("export", ENGINE_RUN, "--db", engine_ledger, "-o", str(target), "--force")
    assert result.exit_code == 0, result.output
    fresh = invoke("export", ENGINE_RUN, "--db", engine_ledger)
    assert target.read_text(encoding="utf-8") == fresh.stdout


def test_a_new_output_file_is_written(engine_ledger: str, tmp_path: Path) -> None:
    target = tmp_path / "new" / "transcript.md"
    result = invoke(
        "export", ENGINE_RUN, "--db", engine_ledger, "-f", "transcript", "-o", str(target)
    )
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8").startswith("# Phase-2 discussion")


def test_a_folder_that_is_not_empty_is_not_written_into(engine_ledger: str, tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "choices.csv").write_text("mine\n", encoding="utf-8")
    args = ("export", ENGINE_RUN, "--db", engine_ledger, "-f", "tables", "--out", str(folder))
    result = invoke(*args)
    assert result.exit_code == 2
    line = one_error(result)
    assert str(folder) in line and "not empty" in line and "--force" in line
    assert [p.name for p in folder.iterdir()] == ["choices.csv"]
    assert (folder / "choices.csv").read_text(encoding="utf-8") == "mine\n"

    forced = invoke(*args, "--force")
    assert forced.exit_code == 0, forced.output
    assert (folder / "choices.csv").read_text(encoding="utf-8").startswith("run_id,")
    assert (folder / "data_dictionary.md").exists()


def test_an_empty_or_new_folder_is_written(engine_ledger: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (empty, tmp_path / "new"):
        result = invoke(
            "export", ENGINE_RUN, "--db", engine_ledger, "-f", "tables", "--out", str(folder)
        )
        assert result.exit_code == 0, result.output
        assert (folder / "data_dictionary.md").exists()


def test_out_naming_a_file_is_one_line(engine_ledger: str, tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("x", encoding="utf-8")
    result = invoke(
        "export", ENGINE_RUN, "--db", engine_ledger, "-f", "tables", "--out", str(target)
    )
    assert result.exit_code == 2 and "is not a folder" in one_error(result)
    assert target.read_text(encoding="utf-8") == "x"
