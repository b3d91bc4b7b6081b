"""Studies (docs/studies.md): many runs of one experiment across conditions. A study file names
a base config, factors (config paths, each with a list of values) and a number of replicates;
its plan is every combination of factor values (a cell) times every replicate, each run with
its own config, labels and seed. Pure: the plan is a function of the study file and the base
config's data."""

from __future__ import annotations

import copy
import itertools
import re
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from maai.canonical import canonical_json
from maai.domain import experiments
from maai.domain.config import ConfigError, ExperimentConfig, Price, Strict, validation_lines
from maai.domain.experiment import Experiment
from maai.domain.seeds import derive_seed

STUDY_LABELS = ("study", "cell", "replicate")
"""Labels every run of a study carries besides its factor values."""

_PATH_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\*|\d+|[A-Za-z_][A-Za-z0-9_]*=[^\]]+)\]|\.")

SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Reference:
    """The study file's ``reference:``: distributions a study report compares its runs with
    (docs/studies.md, "Report"), e.g. a published human result. ``distributions`` maps a
    statistic the experiment names (``Experiment.reference_statistics``) to each category's
    probability; ``source`` says where the numbers come from."""

    source: str | None
    distributions: dict[str, dict[str, float]]


def parse_reference(value: Any) -> Reference:
    """``{source: TEXT, STATISTIC: {CATEGORY: PROBABILITY, ...}, ...}``: every probability
    from 0 to 1, each distribution summing to 1 (within ``SUM_TOLERANCE``). A ``ValueError``
    names the key at fault."""
    if not isinstance(value, dict):
        raise ValueError("must be a mapping: source and statistic -> {category: probability}")
    source = value.get("source")
    if source is not None and not isinstance(source, str):
        raise ValueError("source: must be text")
    distributions: dict[str, dict[str, float]] = {}
    for name, distribution in value.items():
        if name == "source":
            continue
        if not isinstance(distribution, dict) or not distribution:
            raise ValueError(f"{name}: must map each category to its probability")
        probabilities: dict[str, float] = {}
        for category, probability in distribution.items():
            number = probability if isinstance(probability, int | float) else None
            if isinstance(probability, bool) or number is None or not 0 <= number <= 1:
                raise ValueError(f"{name}.{category}: {probability!r} is not a probability (0-1)")
            probabilities[str(category)] = float(number)
        total = sum(probabilities.values())
        if abs(total - 1) > SUM_TOLERANCE:
            raise ValueError(f"{name}: the probabilities sum to {total:g}, not 1")
        distributions[str(name)] = probabilities
    if not distributions:
        raise ValueError("gives no distribution")
    return Reference(source, distributions)


class ProviderLimits(Strict):
    """Per provider: calls at once, and calls started per minute."""

    concurrency: int | None = Field(default=None, ge=1, le=10_000)
    per_minute: int | None = Field(default=None, ge=1, le=1_000_000)


class Limits(Strict):
    """Limits on model calls over all runs of the study under way (docs/studies.md)."""

    calls: int | None = Field(default=None, ge=1, le=100_000)  # at once, all providers
    providers: dict[str, ProviderLimits] = Field(default_factory=dict)


class ForkFrom(Strict):
    """``fork: {from: RUN_ID, at: POINT}``: every run of the study is a fork of that run at
    that point (docs/forks.md), its factors applied after the point. ``fork: {study: BASE,
    at: POINT}``: each run of the study ``BASE`` is forked so, every cell and replicate
    from each (``parent`` is then set to each of them in turn, as the runs are planned)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    parent: str = Field(default="", alias="from")
    study: str | None = Field(default=None, min_length=1)
    at: str = Field(min_length=1)

    @model_validator(mode="after")
    def _one_origin(self) -> ForkFrom:
        if bool(self.parent) == (self.study is not None):
            raise ValueError("fork: give either `from: RUN_ID` or `study: BASE_STUDY`")
        return self


class StudyFile(Strict):
    """A study file, validated (docs/studies.md "The study file")."""

    study: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")]
    base: str | None = None  # a config file (relative to the study file) or packaged example
    config: dict[str, Any] | None = None  # or the base config written inline
    factors: dict[str, list[Any]] = Field(default_factory=dict)
    replicates: int = Field(default=1, ge=1, le=10_000)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    concurrency: int = Field(default=4, ge=1, le=256)
    limits: Limits = Field(default_factory=Limits)
    prices: dict[str, Price] = Field(default_factory=dict)  # model name -> USD per 1M tokens
    budget_usd: float | None = Field(default=None, ge=0, le=10_000_000, allow_inf_nan=False)
    reference: Reference | None = None  # distributions the study report compares with
    fork: ForkFrom | None = None  # every run a fork of a stored run (then no base config)
    # Factors or conditions confounded by design, in words: the study report prints them
    # beside its comparisons (docs/studies.md, "Comparisons").
    confounds: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        default_factory=list
    )

    @field_validator("reference", mode="before")
    @classmethod
    def _reference(cls, value: Any) -> Reference | None:
        return None if value is None or isinstance(value, Reference) else parse_reference(value)

    @field_validator("factors")
    @classmethod
    def _factors(cls, value: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for path, values in value.items():
            parse_path(path)
            if not values:
                raise ValueError(f"factor {path!r} has no values")
            texts = [canonical_json(v) for v in values]
            repeated = sorted({t for t in texts if texts.count(t) > 1})
            if repeated:
                raise ValueError(f"factor {path!r} repeats {', '.join(repeated)}")
        return value

    @model_validator(mode="after")
    def _one_base(self) -> StudyFile:
        if self.fork is not None:
            if self.base is not None or self.config is not None:
                raise ValueError("a study from a fork point takes its config from the run forked")
            return self
        if (self.base is None) == (self.config is None):
            raise ValueError("give the base config either as `base: FILE` or inline as `config:`")
        return self


@dataclass(frozen=True)
class PlannedRun:
    run_id: str
    cell: int  # from 1, in the order of the factors' combinations
    replicate: int  # from 1
    values: dict[str, Any]  # factor path → value
    config: ExperimentConfig
    fork: tuple[str, str] | None = None  # (parent run, point): the run is created as a fork


@dataclass(frozen=True)
class Where:
    """``[key=value]`` in a factor path: the items of a list whose ``key`` is ``value``
    (``world.agents[role=player].priming``: every player's priming, not the moderator's)."""

    key: str
    value: str

    def picks(self, item: Any) -> bool:
        return isinstance(item, dict) and str(item.get(self.key)) == self.value

    def __str__(self) -> str:
        return f"{self.key}={self.value}"


Step = str | int | Where


def parse_path(path: str) -> list[Step]:
    """``agents[*].model`` → ``["agents", "*", "model"]``; ``agents[0]`` → ``["agents", 0]``;
    ``agents[role=player]`` → ``["agents", Where("role", "player")]``."""
    tokens: list[Step] = []
    position = 0
    expect_key = True
    while position < len(path):
        match = _PATH_TOKEN.match(path, position)
        if match is None:
            raise ValueError(f"factor path {path!r}: cannot read {path[position:]!r}")
        key, index = match.group(1), match.group(2)
        if key is not None:
            if not expect_key:
                raise ValueError(f"factor path {path!r}: a '.' must come before {key!r}")
            tokens.append(key)
            expect_key = False
        elif index is not None:
            if expect_key:
                raise ValueError(f"factor path {path!r}: '[{index}]' must follow a key")
            if "=" in index:
                key_name, _, wanted = index.partition("=")
                tokens.append(Where(key_name, wanted))
            else:
                tokens.append("*" if index == "*" else int(index))
        else:
            if expect_key:
                raise ValueError(f"factor path {path!r}: a key must come before '.'")
            expect_key = True
        position = match.end()
    if not tokens or expect_key:
        raise ValueError(f"factor path {path!r} is empty or ends with '.'")
    return tokens


def set_path(data: Any, path: str, value: Any) -> None:
    """Set ``value`` at ``path`` in ``data`` (every element for ``[*]``); the path must exist:
    a ``ValueError`` names the first step that does not."""
    tokens = parse_path(path)

    def walk(node: Any, rest: list[Step], where: str) -> None:
        token, *tail = rest
        if token == "*" or isinstance(token, int | Where):
            if not isinstance(node, list):
                raise ValueError(f"{where} is not a list")
            if isinstance(token, Where):
                indexes: Any = [i for i, item in enumerate(node) if token.picks(item)]
                if not indexes:
                    raise ValueError(f"no item of {where} has {token.key} = {token.value!r}")
            else:
                indexes = range(len(node)) if token == "*" else [token]
            if isinstance(token, int) and token >= len(node):
                raise ValueError(f"{where} has {len(node)} item(s), no [{token}]")
            for i in indexes:
                if tail:
                    walk(node[i], tail, f"{where}[{token}]")
                else:
                    node[i] = copy.deepcopy(value)
            return
        if not isinstance(node, dict):
            raise ValueError(f"{where or 'the config'} is not a mapping")
        if token not in node:
            keys = ", ".join(sorted(node)) or "none"
            raise ValueError(f"{where or 'the config'} has no key {token!r} (keys: {keys})")
        name = f"{where}.{token}" if where else token
        if tail:
            walk(node[token], tail, name)
        else:
            node[token] = copy.deepcopy(value)

    walk(data, tokens, "")


def label_key(path: str) -> str:
    """A factor path as a label (a table column): ``agents[*].model`` → ``agents.model``,
    ``agents[0].model`` → ``agents.0.model``, ``agents[role=player].x`` → ``agents.player.x``."""
    path = re.sub(r"\[[A-Za-z_][A-Za-z0-9_]*=([^\]]+)\]", r".\1", path)
    return re.sub(r"\[(\d+)\]", r".\1", path.replace("[*]", ""))


def label_value(value: Any) -> str | int | float | bool:
    """A factor value as a label (a table column): scalars as they are, the rest as JSON."""
    if isinstance(value, str | int | float | bool) and value is not None:
        return value
    return canonical_json(value)


def plan_study(study: StudyFile, base: ExperimentConfig, source: str) -> list[PlannedRun]:
    """Every run of the study: cells in the order of the factors' combinations (the first
    factor varies slowest), replicates within each cell. Errors name ``source`` and the
    factor at fault, one line each."""
    check_reference(study.reference, experiments.get(base.experiment), source)
    complete = base.model_dump(mode="json")
    paths = list(study.factors)
    combos = list(itertools.product(*(study.factors[p] for p in paths))) if paths else [()]
    width_cell, width_rep = len(str(len(combos))), len(str(study.replicates))
    runs: list[PlannedRun] = []
    for cell, combo in enumerate(combos, 1):
        values = dict(zip(paths, combo, strict=True))
        data = copy.deepcopy(complete)
        for path, value in values.items():
            try:
                set_path(data, path, value)
            except ValueError as exc:
                raise ConfigError(f"{source}: factors: {path!r}: {exc}") from None
        for replicate in range(1, study.replicates + 1):
            labels = dict(data.get("labels") or {})
            labels.update({label_key(path): label_value(v) for path, v in values.items()})
            labels.update({"study": study.study, "cell": cell, "replicate": replicate})
            run_data = {
                **data,
                "labels": labels,
                "seed": derive_seed(study.seed, values, replicate),
            }
            if study.prices:
                prices = {**(data.get("prices") or {}), **study.model_dump(mode="json")["prices"]}
                run_data["prices"] = prices
            config = _validated(run_data, values, source)
            run_id = f"{study.study}.c{cell:0{width_cell}d}.r{replicate:0{width_rep}d}"
            fork = None if study.fork is None else (study.fork.parent, study.fork.at)
            runs.append(PlannedRun(run_id, cell, replicate, values, config, fork))
    return runs


def check_reference(reference: Reference | None, experiment: Experiment, source: str) -> None:
    """Every statistic of the reference is one the experiment's study report uses, with
    its categories only; a ``ConfigError`` names the file and the key."""
    if reference is None:
        return
    known = experiment.reference_statistics
    for name, distribution in reference.distributions.items():
        if name not in known:
            uses = ", ".join(sorted(known)) or "none"
            raise ConfigError(
                f"{source}: reference.{name}: not a statistic of the {experiment.name} study "
                f"report (it uses: {uses})"
            )
        unknown = sorted(set(distribution) - set(known[name]))
        if unknown:
            raise ConfigError(
                f"{source}: reference.{name}.{unknown[0]}: unknown category "
                f"(categories: {', '.join(known[name])})"
            )


def _validated(data: dict[str, Any], values: dict[str, Any], source: str) -> ExperimentConfig:
    try:
        _, config = experiments.parse_config(data, source=source)
    except ConfigError as exc:
        cell = ", ".join(f"{p} = {canonical_json(v)}" for p, v in values.items())
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{first} (in the cell {cell})" if cell else first) from None
    return config


def parse_study(data: Any, source: str) -> StudyFile:
    """Validate a study file's data; one line per problem, naming the file and the key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the top level must be a mapping")
    try:
        return StudyFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("\n".join(validation_lines(exc, source))) from None
