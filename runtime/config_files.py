"""Config files: reading one (YAML, or JSON by its suffix) with the files it names read in,
the examples packaged with maai (``maai.configs``) found by name, and copied out by
``maai init``."""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from maai.domain import experiments
from maai.domain.config import ConfigError

DATA_SUFFIXES = (".yaml", ".yml", ".json")

ConfigPath = str | Path | Traversable


def packaged() -> dict[str, Traversable]:
    """Name (file stem) -> packaged example config."""
    root = resources.files("maai.configs")
    return {
        item.name.removesuffix(".yaml"): item
        for item in sorted(root.iterdir(), key=lambda i: i.name)
        if item.name.endswith(".yaml")
    }


def resolve(argument: str | Path) -> Path | Traversable:
    """The config a ``CONFIG`` argument names: a file path; else a packaged example by name
    (``default``, ``openai``...); else an experiment's name, giving its default example."""
    path = Path(argument)
    if path.exists() or path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        return path
    name = str(argument)
    examples = packaged()
    if name in examples:
        return examples[name]
    if name in experiments.names():
        experiment = experiments.get(name)
        if experiment.configs_package != "maai.configs":  # a plug-in's own example
            return resources.files(experiment.configs_package).joinpath(experiment.default_config)
        default = experiment.default_config.removesuffix(".yaml")
        if default in examples:
            return examples[default]
    raise ConfigError(
        f"{name}: no such file, and no packaged config or experiment of that name "
        f"(packaged: {', '.join(examples)}; experiments: {', '.join(experiments.names())})"
    )


def read_config_file(path: ConfigPath) -> Any:
    """The data of a config file (a path, or a packaged example), as it is written: YAML, or
    JSON when its name ends in ``.json``. Errors name the file (and the line)."""
    if isinstance(path, str):
        path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {exc.start + 1}); save the config as UTF-8"
        ) from None
    if path.name.endswith(".json"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{path}: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{path}: {problem}{where}") from None


def read_config(path: ConfigPath) -> Any:
    """A config file's data with the files it names read in (``inline_files``): what the
    experiment's config is validated from."""
    if isinstance(path, str):
        path = Path(path)
    data = read_config_file(path)
    # A packaged example is read from the package, where its files are too.
    folder = path.parent if isinstance(path, Path) else resources.files("maai.configs")
    return inline_files(data, folder, str(path))


def inline_files(data: Any, folder: Path | Traversable, source: str) -> Any:
    """``data`` with every file its experiment lets a key name (``Experiment.config_files``,
    e.g. the world's ``world: worlds/town.yaml``) replaced by that file's content, checked on
    its own so that a mistake in it names the file. A name is a path relative to ``folder``
    (the config's own), or the bare name of a packaged file. Data naming no known experiment
    is left as it is: its validation says what is wrong."""
    if not isinstance(data, dict) or data.get("experiment") not in experiments.names():
        return data
    experiment = experiments.get(data["experiment"])
    out = dict(data)
    for key, packaged_folder in experiment.config_files.items():
        name = data.get(key)
        if not isinstance(name, str):
            continue
        found = _named_file(name, folder, packaged_folder)
        if found is None:
            known = ", ".join(_packaged_names(packaged_folder)) or "none"
            raise ConfigError(
                f"{source}: {key}: {name}: no such file beside the config ({_join(folder, name)})"
                f" nor a packaged one of that name (packaged: {known})"
            )
        content = read_config_file(found)
        experiment.check_config_file(key, content, str(found))
        out[key] = content
    return out


def _named_file(name: str, folder: Path | Traversable, packaged_folder: str) -> Any:
    """The file ``name`` stands for, or None: beside the config first, then packaged."""
    beside = _join(folder, name)
    if beside.is_file():
        return beside
    pure = PurePosixPath(name)
    if len(pure.parts) == 1 and pure.suffix == "":
        root = resources.files("maai.configs").joinpath(packaged_folder)
        for suffix in DATA_SUFFIXES:
            item = root.joinpath(name + suffix)
            if item.is_file():
                return item
    return None


def _join(folder: Path | Traversable, name: str) -> Any:
    if isinstance(folder, Path):
        return folder / name
    for part in PurePosixPath(name).parts:
        folder = folder.joinpath(part)
    return folder


def _packaged_names(folder: str) -> list[str]:
    root = resources.files("maai.configs").joinpath(folder)
    if not root.is_dir():
        return []
    return sorted(
        PurePosixPath(item.name).stem
        for item in root.iterdir()
        if item.name.endswith(DATA_SUFFIXES)
    )


def _packaged_files() -> dict[str, Traversable]:
    """Relative path -> packaged file named by an experiment's configs (``worlds/x.yaml``)."""
    named = (experiments.get(name).config_files.values() for name in experiments.names())
    folders = sorted({folder for each in named for folder in each})
    found: dict[str, Traversable] = {}
    for folder in folders:
        root = resources.files("maai.configs").joinpath(folder)
        if not root.is_dir():
            continue
        for item in sorted(root.iterdir(), key=lambda i: i.name):
            if item.name.endswith(DATA_SUFFIXES):
                found[f"{folder}/{item.name}"] = item
    return found


STUDIES = "studies"
"""The packaged folder of example study files (``maai study run u_sweep``)."""


def packaged_studies() -> dict[str, Traversable]:
    """Name (file stem) -> packaged example study file."""
    root = resources.files("maai.configs").joinpath(STUDIES)
    return {
        item.name.removesuffix(".yaml"): item
        for item in sorted(root.iterdir(), key=lambda i: i.name)
        if item.name.endswith(".yaml")
    }


def resolve_study(argument: str | Path) -> Path | Traversable:
    """The study file a ``STUDY`` argument names: a file path; else a packaged example
    study by name (``u_sweep``)."""
    path = Path(argument)
    if path.exists() or path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        return path
    studies = packaged_studies()
    if str(argument) in studies:
        return studies[str(argument)]
    raise ConfigError(
        f"{argument}: no such file, and no packaged study of that name"
        f" (packaged: {', '.join(studies)})"
    )


def write_examples(folder: Path, *, force: bool = False) -> list[Path]:
    """Copy every packaged example into ``folder``: the configs, the files they name
    (``worlds/``) beside them so that the copies work as they are, and the example studies
    (``studies/``); refuses to overwrite without ``force``."""
    sources: dict[str, Traversable] = {f"{name}.yaml": item for name, item in packaged().items()}
    sources.update(_packaged_files())
    sources.update({f"{STUDIES}/{name}.yaml": item for name, item in packaged_studies().items()})
    targets = {relative: folder / relative for relative in sources}
    existing = [p for p in targets.values() if p.exists()]
    if existing and not force:
        raise ConfigError(
            f"{', '.join(str(p) for p in existing)}: already there; use --force to overwrite"
        )
    for relative, target in targets.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(sources[relative].read_text(encoding="utf-8"), encoding="utf-8")
    return list(targets.values())
