"""Config files: the examples packaged with maai (``maai.configs``), found by name, and
copied out by ``maai init``."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from maai.domain import experiments
from maai.domain.config import ConfigError


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
        default = experiments.get(name).default_config.removesuffix(".yaml")
        if default in examples:
            return examples[default]
    raise ConfigError(
        f"{name}: no such file, and no packaged config or experiment of that name "
        f"(packaged: {', '.join(examples)}; experiments: {', '.join(experiments.names())})"
    )


def write_examples(folder: Path, *, force: bool = False) -> list[Path]:
    """Copy every packaged example into ``folder``; refuses to overwrite without ``force``."""
    examples = packaged()
    targets = {name: folder / f"{name}.yaml" for name in examples}
    existing = [p for p in targets.values() if p.exists()]
    if existing and not force:
        raise ConfigError(
            f"{', '.join(str(p) for p in existing)}: already there; use --force to overwrite"
        )
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in targets.items():
        target.write_text(examples[name].read_text(encoding="utf-8"), encoding="utf-8")
    return list(targets.values())
