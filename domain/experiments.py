"""Finding experiments by name. An experiment is a package ``maai.domain.<name>`` with an
``experiment`` module defining ``EXPERIMENT``, or any installed distribution's entry point in
the ``maai.experiments`` group naming an :class:`~maai.domain.experiment.Experiment`. Adding
one needs no edit here (docs/experiments.md)."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import cache
from importlib.metadata import entry_points
from typing import Any

import maai.domain
from maai.domain.config import ConfigError, ExperimentConfig
from maai.domain.experiment import Experiment

ENTRY_POINT_GROUP = "maai.experiments"


class UnknownExperimentError(ConfigError):
    """No experiment of that name is installed."""


@cache
def _builtin() -> tuple[str, ...]:
    found = []
    for module in pkgutil.iter_modules(maai.domain.__path__):
        if module.ispkg and importlib.util.find_spec(f"maai.domain.{module.name}.experiment"):
            found.append(module.name)
    return tuple(sorted(found))


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def names() -> list[str]:
    """Every experiment this installation can run, sorted."""
    return sorted({*_builtin(), *_plugins()})


@cache
def get(name: str) -> Experiment:
    """The experiment called ``name``; an unknown name is an error that lists the known ones."""
    if name in _builtin():
        module = importlib.import_module(f"maai.domain.{name}.experiment")
        experiment = module.EXPERIMENT
    elif name in (plugins := _plugins()):
        experiment = plugins[name].load()
    else:
        raise UnknownExperimentError(
            f"unknown experiment {name!r}; known: {', '.join(names()) or '(none)'}"
        )
    if not isinstance(experiment, Experiment) or experiment.name != name:
        raise UnknownExperimentError(f"experiment {name!r} is not a maai Experiment named so")
    return experiment


def parse_config(data: Any, source: str = "config") -> tuple[Experiment, ExperimentConfig]:
    """The experiment a raw (YAML-loaded) config names in ``experiment:`` and the validated
    config. Errors name the file and the key at fault; keys that belong to another
    experiment's config say so."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    name = data.get("experiment")
    if name is None:
        raise ConfigError(
            f"{source}: experiment: missing; name the experiment to run, one of: "
            f"{', '.join(names())}"
        )
    if not isinstance(name, str):
        raise ConfigError(f"{source}: experiment: must be a name, one of: {', '.join(names())}")
    try:
        experiment = get(name)
    except UnknownExperimentError as exc:
        raise ConfigError(f"{source}: experiment: {exc}") from None
    try:
        return experiment, experiment.parse_config(data, source)
    except ConfigError as exc:
        foreign = _foreign_keys(experiment, data)
        if foreign:
            owner, keys = foreign
            raise ConfigError(
                f"{source}: {', '.join(keys)}: belong to the {owner!r} experiment's config, "
                f"but this config names experiment {name!r}\n{exc}"
            ) from None
        raise


def _foreign_keys(experiment: Experiment, data: dict[str, Any]) -> tuple[str, list[str]] | None:
    own = set(experiment.config_model.model_fields)
    unknown = [k for k in data if k not in own]
    if not unknown:
        return None
    for other in names():
        if other == experiment.name:
            continue
        fields = get(other).config_model.model_fields
        theirs = [k for k in unknown if k in fields]
        if theirs:
            return other, theirs
    return None
