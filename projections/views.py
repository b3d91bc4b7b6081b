"""The base of an experiment's read models (``ExperimentViews``): the defaults an experiment
without votes, reports or tables of its own gets, and :func:`lazy`, which turns each read
model into one line naming the function that builds it (docs/experiments.md, "Views").

A views class lives in the experiment's projections package; ``lazy("transcript:transcript")``
calls ``transcript`` of that package's ``transcript`` module, imported on first use, so that
commands which only run an experiment load none of its read models."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from maai.domain.config import ExperimentConfig
from maai.domain.experiment import VoteOutcome
from maai.projections.history import History
from maai.projections.tables import Table, build_tables


def _load(owner: type, target: str) -> Any:
    """``module:name`` of the package that defines ``owner``."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{owner.__qualname__}: {target!r} is not 'module:name'")
    package = sys.modules[owner.__module__].__package__ or owner.__module__
    return getattr(importlib.import_module(f"{package}.{module_name}"), attribute)


class lazy:
    """A views method that calls ``module:function`` of the views' own package with its
    arguments; the module is imported on the first call."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Callable[..., Any]:
        function = _load(owner, self.target)
        return function  # type: ignore[no-any-return]


class Views:
    """Defaults for everything generic code reads of an experiment's views beyond the read
    models every experiment has (agent log, transcript, tables, protocol and leak audits,
    progress), which a subclass names with :func:`lazy`."""

    table_specs: ClassVar[str] = "tables:TABLES"
    """``module:name`` of the experiment's tables (``projections.tables.Table``): a sequence,
    or a function of the histories giving one."""

    agent_log: Callable[..., dict[str, Any]]
    transcript: Callable[[History], str]
    tables: Callable[[Sequence[History]], Mapping[str, str]]
    audit_protocol: Callable[[History], Any]
    protocol_rules: Callable[[], Sequence[Any]]
    audit_leaks: Callable[[History], Any]
    progress: Callable[[ExperimentConfig], Any]

    def table_rows(self, history: History) -> dict[str, list[dict[str, Any]]]:
        specs = _load(type(self), self.table_specs)
        tables: Sequence[Table] = specs([history]) if callable(specs) else specs
        return build_tables(tables, [history])

    def audit_votes(self, history: History) -> dict[str, Any] | None:
        """``None``: the experiment holds no votes."""
        return None

    def vote_problems(self, history: History) -> list[str]:
        """None found: an experiment without votes has no tallies to recount."""
        return []

    def describe_vote(self, row: dict[str, Any]) -> str:
        value = row.get("value")
        return "—" if value is None else str(value)

    def vote_outcome(self, report: dict[str, Any]) -> VoteOutcome:
        outcome = report.get("outcome")
        return VoteOutcome(ended=outcome is not None, agreement=None, rounds_used=None)


__all__ = ["Views", "lazy"]
