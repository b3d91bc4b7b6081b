"""Files the CLI writes: refusing to overwrite, writing a file, writing one whole or not at
all. Below every command module, so that the export, report and study commands share them
without importing one another."""

from __future__ import annotations

from pathlib import Path

from maai.cli.common import fail


def refuse_to_overwrite(output: Path | None, out_dir: Path | None) -> None:
    """Checked before anything is read or written: one line naming the file or folder."""
    if output is not None and (output.exists() or output.is_symlink()):
        if output.is_dir():
            fail(f"{output}: is a folder; -o names the file to write")
        fail(f"{output}: already exists; give --force to overwrite it, or choose another name")
    if out_dir is not None and out_dir.exists():
        if not out_dir.is_dir():
            fail(f"{out_dir}: exists and is not a folder; --out names the folder to write to")
        try:
            occupied = next(out_dir.iterdir(), None) is not None
        except OSError as exc:
            fail(f"cannot read the folder {out_dir}: {exc.strerror or exc}")
        if occupied:
            fail(
                f"{out_dir}: the folder is not empty; give --force to write into it (files of"
                " the same names are overwritten), or choose another folder"
            )


def write_file(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")


def write_whole(path: Path, text: str) -> None:
    """Written beside its final name and renamed into place, so the page is whole or absent
    (as the JSON export), never cut short by a full disk or a kill."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8", newline="\n")
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        fail(f"cannot write {path}: {exc.strerror or exc}")
