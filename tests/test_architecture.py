"""The shape of the code, checked by walking its imports (docs/experiments.md):

- an experiment (``domain/<name>/``, ``projections/<name>/``) is imported by nothing outside
  its own folders: the engine, verify, the CLI and the generic projections reach it only
  through the Experiment interface;
- imports point one way: ``domain`` imports no ledger, runtime, projections or cli; the
  ``ledger`` knows no domain; ``projections`` import no runtime or cli; nothing imports the
  contract tests (``maai.testing``);
- every import names the one package, ``maai``: no bare top-level name (``from domain.frohlich
  import ...`` would load a second copy of the module from a checkout, and nothing from a
  wheel), and no relative import out of a file's own layer (ruff's TID252 refuses relative
  imports altogether; this walk resolves them, so a ``noqa`` cannot hide one);
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
    files = [p for top in (*TOP, "maai") for p in sorted((ROOT / top).rglob("*.py"))]
    return sorted(set(files))


def _package_of(path: Path) -> list[str]:
    """The dotted package ``path`` belongs to, as installed: ``maai.<folders>``."""
    parts = list(path.relative_to(ROOT).parent.parts)
    return ["maai", *parts[1:]] if parts and parts[0] == "maai" else ["maai", *parts]


def _tree(path: Path, text: str | None) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8") if text is None else text)


def _imports(path: Path, text: str | None = None) -> set[str]:
    """Every module ``path`` (or ``text`` placed there) imports: absolute names, relative ones
    resolved against the file's package, at any depth of the file."""
    found: set[str] = set()
    for node in ast.walk(_tree(path, text)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                package = _package_of(path)
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _relative_imports(path: Path, text: str | None = None) -> list[tuple[int, str]]:
    """(line, resolved module) of each relative import in ``path`` (or ``text`` placed there)."""
    found = []
    for node in ast.walk(_tree(path, text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            package = _package_of(path)
            base = package[: len(package) - (node.level - 1)]
            found.append((node.lineno, ".".join([*base, *([node.module] if node.module else [])])))
    return found


def _home(path: Path) -> tuple[str, ...]:
    return path.relative_to(ROOT).parts


def test_the_walk_sees_the_code() -> None:
    sources = _sources()
    assert len(sources) > 100
    engine = ROOT / "runtime" / "engine.py"
    assert "maai.domain.experiments" in _imports(engine)


def test_the_walk_resolves_relative_imports() -> None:
    # Source as if written in domain/frohlich/probe.py (no file is written).
    probe = ROOT / "domain" / "frohlich" / "probe.py"
    source = "from . import state\nfrom ..events import Event\nfrom ...runtime import engine\n"
    found = _imports(probe, source)
    relative = [module for _, module in _relative_imports(probe, source)]
    assert {"maai.domain.frohlich.state", "maai.domain.events.Event"} <= found
    assert "maai.runtime.engine" in found
    assert relative == ["maai.domain.frohlich", "maai.domain.events", "maai.runtime"]


def test_no_import_names_a_layer_without_maai() -> None:
    # The tests, benchmarks and examples too: pytest puts the checkout on sys.path, where a
    # bare `domain` would import.
    others = [p for top in ("tests", "benchmarks", "examples") for p in (ROOT / top).rglob("*.py")]
    offenders = []
    for path in [*_sources(), *others]:
        for module in _imports(path):
            if module.split(".")[0] in TOP:
                offenders.append(f"{path.relative_to(ROOT)} imports {module} (write maai.{module})")
    assert not offenders, "\n".join(offenders)


def test_no_relative_import_leaves_its_layer() -> None:
    offenders = []
    for path in _sources():
        layer = ".".join(_package_of(path)[:2])
        for line, module in _relative_imports(path):
            if module != layer and not module.startswith(layer + "."):
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module} relatively")
    assert not offenders, "\n".join(offenders)


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
FORBIDDEN = {layer: (*modules, "maai.testing") for layer, modules in FORBIDDEN.items()}
FORBIDDEN["cli"] = ("maai.testing",)


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
    on_disk = set()
    for top in (*TOP, "maai"):
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if "__pycache__" in folder.parts:
                continue
            on_disk.add(".".join(_package_of(folder / "module.py")))
    assert listed == on_disk, (
        f"add to pyproject.toml: {sorted(on_disk - listed)}; remove: {sorted(listed - on_disk)}"
    )
