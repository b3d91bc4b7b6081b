"""The shape of the code, checked by walking its imports (docs/experiments.md):

- an experiment (``domain/<name>/``, ``projections/<name>/``) is imported by nothing outside
  its own folders: the engine, verify, the CLI and the generic projections reach it only
  through the Experiment interface;
- imports point one way: ``domain`` imports no ledger, runtime, projections or cli; the
  ``ledger`` knows no domain; ``projections`` import no runtime or cli;
- the packages listed in pyproject.toml are exactly the folders on disk.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from maai.domain import experiments

ROOT = Path(__file__).resolve().parent.parent
TOP = ("cli", "configs", "domain", "ledger", "projections", "runtime")


def _sources() -> list[Path]:
    files = [ROOT / "maai" / name for name in ("__init__.py", "__main__.py", "canonical.py")]
    files += [p for top in TOP for p in sorted((ROOT / top).rglob("*.py"))]
    files += sorted((ROOT / "maai").glob("*.py"))
    return sorted(set(files))


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names), at any depth of the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _home(path: Path) -> tuple[str, ...]:
    return path.relative_to(ROOT).parts


def test_the_walk_sees_the_code() -> None:
    sources = _sources()
    assert len(sources) > 100
    engine = ROOT / "runtime" / "engine.py"
    assert "maai.domain.experiments" in _imports(engine)


@pytest.mark.parametrize("name", experiments.names())
def test_an_experiment_is_imported_only_from_its_own_folders(name: str) -> None:
    own = {("domain", name), ("projections", name)}
    offenders = []
    for path in _sources():
        if tuple(_home(path)[:2]) in own:
            continue
        for module in _imports(path):
            if module.startswith((f"maai.domain.{name}", f"maai.projections.{name}")):
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offenders, "\n".join(offenders)


def test_experiments_do_not_import_each_other() -> None:
    names = experiments.names()
    offenders = []
    for path in _sources():
        home = _home(path)
        if len(home) < 3 or home[0] not in ("domain", "projections") or home[1] not in names:
            continue
        for module in _imports(path):
            for other in names:
                if other != home[1] and module.startswith(
                    (f"maai.domain.{other}", f"maai.projections.{other}")
                ):
                    offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offenders, "\n".join(offenders)


FORBIDDEN = {
    "domain": ("maai.ledger", "maai.runtime", "maai.projections", "maai.cli", "maai.api"),
    "ledger": ("maai.domain", "maai.runtime", "maai.projections", "maai.cli", "maai.api"),
    "projections": ("maai.runtime", "maai.cli", "maai.api"),
    "runtime": ("maai.cli", "maai.api"),
}


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_imports_point_one_way(layer: str) -> None:
    offenders = []
    for path in _sources():
        if _home(path)[0] != layer:
            continue
        for module in _imports(path):
            if module.startswith(FORBIDDEN[layer]):
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offenders, "\n".join(offenders)


def test_the_domain_does_no_io() -> None:
    io_modules = ("os", "subprocess", "socket", "sqlite3", "sqlalchemy", "openai", "agents")
    offenders = []
    for path in (ROOT / "domain").rglob("*.py"):
        for module in _imports(path):
            if module.split(".")[0] in io_modules:
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offenders, "\n".join(offenders)


def test_pyproject_lists_every_package_folder() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {"maai"}
    for top in TOP:
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if "__pycache__" in folder.parts:
                continue
            on_disk.add("maai." + ".".join(folder.relative_to(ROOT).parts))
    assert listed == on_disk, (
        f"add to pyproject.toml: {sorted(on_disk - listed)}; remove: {sorted(listed - on_disk)}"
    )
