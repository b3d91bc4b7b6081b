"""The base of an experiment's read models (``ExperimentViews``), and :func:`lazy`, which
names the function that builds a read model (docs/experiments.md, "The protocols it relies
on").

A views class lives in the experiment's projections package; ``lazy("transcript:transcript")``
calls ``transcript`` of that package's ``transcript`` module, imported on first use, so that
commands which only run an experiment load none of its read models. The base names each read
model where the built-in experiments keep it (``agent_log.py``, ``transcript.py``,
``tables.py``, ``protocol.py``, ``leaks.py``, ``progress.py``, and where there is one
``report.py``, ``study_report.py`` and ``outcomes.py``), and says "no votes": an experiment
laid out so declares nothing but what it does otherwise."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from maai.domain.config import ExperimentConfig
from maai.domain.experiment import VoteOutcome
from maai.projections.history import History
from maai.projections.leaks import LeakReport, guarded
from maai.projections.tables import Table, build_tables


def _module_name(owner: type, target: str) -> str:
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{owner.__qualname__}: {target!r} is not 'module:name'")
    package = sys.modules[owner.__module__].__package__ or owner.__module__
    return f"{package}.{module_name}"


def _load(owner: type, target: str) -> Any:
    """``module:name`` of the package that defines ``owner``."""
    return getattr(importlib.import_module(_module_name(owner, target)), target.partition(":")[2])


class _Lazy:
    """A views method that calls ``module:function`` of the views' own package (the package
    of the class it is read through) with its arguments; the module is imported on first use.
    An ``optional`` one whose module the package lacks reads as absent (``getattr(views,
    name, None)`` gives ``None``), as an optional member of ``ExperimentViews`` should."""

    def __init__(self, target: str, *, optional: bool = False) -> None:
        self.target = target
        self.optional = optional

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Callable[..., Any]:
        try:
            function = _load(owner, self.target)
        except ModuleNotFoundError as exc:
            module = _module_name(owner, self.target)
            if self.optional and exc.name == module:
                raise AttributeError(
                    f"{owner.__qualname__} has no {self.name} ({module})"
                ) from None
            raise
        return function  # type: ignore[no-any-return]


def lazy(target: str, *, optional: bool = False) -> Any:
    """A views member read from ``module:function`` of the views' package (:class:`_Lazy`);
    typed ``Any`` so that it can stand for the member's declared callable type."""
    return _Lazy(target, optional=optional)


class Views:
    """An experiment's views, each read model where the built-in experiments keep it; a
    subclass names another place with :func:`lazy`, or overrides a method."""

    table_specs: ClassVar[str] = "tables:TABLES"
    """``module:name`` of the experiment's tables (``projections.tables.Table``): a sequence,
    or a function of the histories giving one."""

    agent_log: Callable[..., dict[str, Any]] = lazy("agent_log:agent_log")
    transcript: Callable[[History], str] = lazy("transcript:transcript")
    tables: Callable[[Sequence[History]], Mapping[str, str]] = lazy("tables:render_tables")
    audit_protocol: Callable[[History], Any] = lazy("protocol:audit_protocol")
    protocol_rules: Callable[[], Sequence[Any]] = lazy("protocol:all_rules")
    leak_audit: Callable[[History], LeakReport] = lazy("leaks:audit_leaks")
    progress: Callable[[ExperimentConfig], Any] = lazy("progress:Progress")
    report: Callable[[History], Sequence[Any]] = lazy("report:report", optional=True)
    study_report: Callable[[Sequence[Any], Any], Sequence[Any]] = lazy(
        "study_report:study_report", optional=True
    )
    study_outcomes: Callable[[], Sequence[Any]] = lazy("outcomes:study_outcomes", optional=True)

    def table_rows(self, history: History) -> dict[str, list[dict[str, Any]]]:
        specs = _load(type(self), self.table_specs)
        tables: Sequence[Table] = specs([history]) if callable(specs) else specs
        return build_tables(tables, [history])

    def audit_leaks(self, history: History) -> LeakReport:
        """The leak audit (``leak_audit``), or where the history holds what no run could have
        recorded, a report that says it could not be checked: never a traceback."""
        return guarded(self.leak_audit, history)

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


def views_of(package: str) -> Views:
    """The views of an experiment laid out as :class:`Views` expects, every read model in
    its usual module of ``package``: ``VIEWS = views_of(__name__)`` is all the package's
    ``__init__.py`` declares. An experiment laid out otherwise subclasses :class:`Views`."""
    laid_out = type("Views", (Views,), {"__module__": package, "__qualname__": "Views"})
    return laid_out()


__all__ = ["Views", "lazy", "views_of"]
