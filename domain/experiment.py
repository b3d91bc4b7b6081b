"""The Experiment interface: everything the engine, verify, the CLI and the generic
projections know about an experiment (docs/experiments.md).

An experiment lives in its own folders: ``domain/<name>/`` (pure: config, events, state,
``evolve``, ``decide``, prompts, parsers, the simulated participant's policy) with an
``experiment.py`` that defines ``EXPERIMENT``, and ``projections/<name>/`` (its read models,
audits, progress lines) with ``VIEWS``. Nothing outside those folders imports them: generic
code finds an experiment by name (``maai.domain.experiments``).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Protocol

from pydantic import TypeAdapter, ValidationError

from maai.domain.calls import ModelRequest
from maai.domain.config import ConfigError, ExperimentConfig, validate_config, validation_lines
from maai.domain.embeddings import EMBEDDER, SimulatedEmbedder
from maai.domain.events import Event, RunForked, RunStarted
from maai.domain.forks import ForkRules, forking_evolve, forking_fold
from maai.domain.prompts import PromptSet
from maai.domain.registry import EventRegistry, Upcaster
from maai.domain.walk import Decision


class RunState(Protocol):
    """What generic code reads of any experiment's state."""

    @property
    def started(self) -> RunStarted | None: ...

    @property
    def requested(self) -> Mapping[str, str]:
        """Address -> request hash of every call requested so far."""
        ...

    @property
    def status(self) -> str: ...


class SimulatedPolicy(Protocol):
    """What the offline simulated model answers: a pure function of the run's seed, the
    participant and the request (never of the prompt text, which a real model also sees)."""

    latency_ms: float

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str: ...


# Callable protocols rather than Callable[...]: a class attribute typed Callable is read by
# mypy as a method (bound to the experiment), and a class assigned to it would not fit.
class ParticipantFactory(Protocol):
    """Builds a simulated participant from the agent's config and the run's seed."""

    def __call__(self, agent: Any, seed: int, /) -> SimulatedPolicy: ...


class UtilityFactory(Protocol):
    """Builds the simulated utility agent from the run's seed."""

    def __call__(self, seed: int, /) -> SimulatedPolicy: ...


@dataclass(frozen=True)
class SummaryTable:
    columns: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Summary:
    """A run's end-of-run summary, as data: the CLI prints it; ``data`` is its JSON form."""

    status: str
    outcome: str
    headline: list[tuple[str, str]]  # label, value (after status and outcome)
    table: SummaryTable | None
    footer: list[str]
    failure: str | None
    data: dict[str, Any] = field(default_factory=dict)
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    rounds: int | None = None
    """Rounds used so far, in the experiment's own unit (Frohlich: Phase-2 discussion
    rounds; collaboration: exchanges of messages; world: game rounds played); ``None`` where
    the experiment counts none. The study's runs table shows it (docs/studies.md)."""


@dataclass(frozen=True)
class VoteOutcome:
    """How a run's votes ended, as the vote audit shows it (``maai audit votes``)."""

    ended: bool
    """Whether the voting is over (else the run stopped before it ended)."""
    agreement: str | None
    """What was agreed, in words; ``None``: no agreement (or not ended)."""
    rounds_used: int | None
    """Rounds it took, where the experiment counts them."""

    def line(self) -> str:
        if not self.ended:
            return "outcome: the voting has not ended"
        if self.agreement is not None:
            return f"outcome: agreement on {self.agreement}"
        after = "" if self.rounds_used is None else f" after {self.rounds_used} round(s)"
        return f"outcome: no agreement{after}"


class Experiment(ABC):
    """One experiment. Subclasses set the class attributes and implement the methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    config_model: ClassVar[type[ExperimentConfig]]
    events: ClassVar[tuple[type[Event], ...]]
    upcasters: ClassVar[Mapping[tuple[str, int], Upcaster]] = {}
    prompts: ClassVar[PromptSet]
    default_config: ClassVar[str]
    """File name of its example config in ``configs_package``."""
    configs_package: ClassVar[str] = "maai.configs"
    """The package holding its example configs: maai's own for the built-in experiments, the
    plug-in's for a plug-in (``maai run NAME`` runs ``default_config`` from there)."""
    views_module: ClassVar[str]
    """Dotted name of its projections package, which defines ``VIEWS``."""
    docs: ClassVar[str]
    """The repository doc with its rules (e.g. ``docs/frohlich.md``)."""
    reference_statistics: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    """The statistics a study file's ``reference:`` may give a distribution of, each with
    its categories (docs/studies.md, "Report"): what the experiment's study report
    compares with a published result."""
    config_files: ClassVar[Mapping[str, str]] = {}
    """Config keys whose value may name a file that holds the key's content instead (docs/
    experiments.md, "Files named in a config"): key -> the folder of the packaged examples
    (``maai.configs``) where a bare name is looked up. The loader puts the file's content in
    its place before validation, so the config a run records holds it whole."""

    @cached_property
    def registry(self) -> EventRegistry:
        return EventRegistry(self.events, self.upcasters)

    def parse_config(self, data: Any, source: str = "config") -> ExperimentConfig:
        return validate_config(self.config_model, data, source)

    def check_config_file(self, key: str, data: Any, source: str) -> None:
        """Validate the content of a file named under ``key`` (one of ``config_files``) on
        its own, before it joins the config, so that its mistakes name that file
        (``source``): a ``ConfigError``, one line per problem."""
        annotation = self.config_model.model_fields[key].annotation
        if annotation is None:  # pydantic gives every declared field one
            raise ConfigError(f"{source}: {key} has no declared type in {self.name}'s config")
        try:
            TypeAdapter(annotation).validate_python(data)
        except ValidationError as exc:
            raise ConfigError("\n".join(validation_lines(exc, source))) from None

    def config_of(self, started: RunStarted) -> ExperimentConfig:
        return self.config_model.model_validate(started.config)

    @abstractmethod
    def initial_state(self) -> Any: ...

    @abstractmethod
    def evolve(self, state: Any, event: Event) -> Any:
        """The reducer: the state after ``event``; pure, ``state`` is left untouched."""

    @abstractmethod
    def decide(self, state: Any) -> Decision:
        """Events derivable now (folded into ``Decision.state``) and the calls to make."""

    @abstractmethod
    def summarize(self, run_id: str, state: Any, status: str | None = None) -> Summary: ...

    @abstractmethod
    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        """The offline stand-in for participant ``who`` (or for ``embedder``, where the
        config names an embeddings model: ``maai.domain.embeddings.SimulatedEmbedder``)."""

    @abstractmethod
    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        """The offline stand-in for the utility agent (structured extraction)."""

    def fold(self, events: Iterable[Event], state: Any = None) -> Any:
        """``evolve`` over ``events`` from ``state`` (else the initial state), which is left
        untouched. An experiment may do it faster (``maai.domain.updates``), to the same
        state."""
        state = self.initial_state() if state is None else state
        for event in events:
            state = self.evolve(state, event)
        return state

    def evolves_as(self, cls: type[Experiment]) -> bool:
        """Whether this experiment's ``evolve`` is ``cls``'s own: a faster ``fold`` written
        for ``cls`` folds with ``cls``'s reducer, so it stands for ``evolve`` only then (not
        when a subclass or the instance replaced ``evolve``)."""
        return type(self).evolve is cls.evolve and "evolve" not in getattr(self, "__dict__", {})

    # --- forks (docs/forks.md, docs/experiments.md "Forks") ------------------------------

    def fork_point_names(self, address: str) -> Sequence[str]:
        """The named fork points (``round:3``) that the step of a call at ``address`` opens:
        each lies at the last boundary before the first such call. None by default: a run
        can then be forked at ``seq:N`` and at an address prefix only."""
        return ()

    def fork_rules(self, point: str) -> ForkRules:
        """Which config fields may change after ``point`` (``seq:N`` and address prefixes
        included). Nothing by default: a fork may then only change its draws."""
        return ForkRules()

    def forked(self, state: Any, event: RunForked) -> Any:
        """The state after ``run.forked``: the run's config and seed from here on are the
        event's (``maai.domain.forks.restarted``), everything else as it was. An experiment
        handles the event in its ``evolve`` and ``fold`` through this."""
        raise NotImplementedError(f"experiment {self.name} cannot be forked")

    def views(self) -> ExperimentViews:
        """Its read models (loaded on first use: commands that only run need none)."""
        module = importlib.import_module(self.views_module)
        views: ExperimentViews = module.VIEWS
        return views


class ProgressView(Protocol):
    def lines(self, event: Event, state: Any) -> list[str]:
        """Rich-markup lines to print for ``event`` (often none)."""
        ...


class ExperimentViews(Protocol):
    """An experiment's read models; each takes a ``maai.projections.history.History``.
    ``maai.projections.views.Views`` gives the defaults of an experiment without votes."""

    def agent_log(self, history: Any, agent: str | None = None) -> dict[str, Any]: ...

    def transcript(self, history: Any) -> str: ...

    def tables(self, histories: Sequence[Any]) -> Mapping[str, str]:
        """File name -> CSV text (and a data dictionary)."""
        ...

    def table_rows(self, history: Any) -> dict[str, list[dict[str, Any]]]:
        """Table name -> rows (for the Python API's DataFrames)."""
        ...

    def audit_protocol(self, history: Any) -> Any: ...

    def protocol_rules(self) -> Sequence[Any]: ...

    def audit_leaks(self, history: Any) -> Any: ...

    def audit_votes(self, history: Any) -> dict[str, Any] | None:
        """The vote audit, or ``None`` for an experiment without votes: its JSON form, with
        ``rows`` (each with ``seq``, ``round``, ``turn``, ``kind``, ``agent``, ``source``,
        ``attempt``, ``raw_text``, ``reason``, ``hash``) and ``outcome``."""
        ...

    def vote_problems(self, history: Any) -> list[str]:
        """Where the recorded tallies and outcomes disagree with a recount of the ballots,
        one line each (``maai audit votes`` exits 1 on any)."""
        ...

    def describe_vote(self, row: dict[str, Any]) -> str:
        """A vote audit row's value in a few words, for tables read by people."""
        ...

    def vote_outcome(self, report: dict[str, Any]) -> VoteOutcome:
        """How the votes of ``report`` (``audit_votes``'s) ended."""
        ...

    def progress(self, config: ExperimentConfig) -> ProgressView: ...

    # Optional: ``maai report`` asks for it with getattr and shows only the generic run facts
    # when an experiment's views lack it (docs/projections.md, "Reports").
    def report(self, history: Any) -> Sequence[Any]:
        """The experiment's sections of the HTML report (``projections.report.Section``),
        after the run facts every report has."""
        ...

    # Optional, as ``report``: ``maai study report`` shows only the study's generic facts
    # when an experiment's views lack it (docs/studies.md, "Report").
    def study_report(self, runs: Sequence[Any], reference: Any) -> Sequence[Any]:
        """The experiment's sections of a study's HTML report, over the study's runs
        (``projections.study_report.StudyRun``) and the study file's reference
        distributions (``domain.study.Reference`` or ``None``)."""
        ...

    # Optional, as ``report``: without it a study report compares no outcome between conditions.
    def study_outcomes(self) -> Sequence[Any]:
        """The per-run outcomes a study report compares between the levels of each factor
        (``projections.comparison.Outcome``; docs/studies.md, "Comparisons")."""
        ...


class DeclaredExperiment(Experiment):
    """An experiment declared from its modules' functions, so that its ``experiment.py`` is a
    list of them (docs/experiments.md, "Declaring one"):

    - ``initial_state``, ``evolve``, ``decide``, ``summarize``: its pure functions, each set
      as ``staticmethod(...)``; ``fast_fold``, where it has one (``maai.domain.updates``);
    - ``participant``: the simulated participant's class, built from the agent's config and
      the run's seed; ``utility``: the simulated utility agent's, built from the seed.
      An ``embedder`` gets ``SimulatedEmbedder`` where the config names an embeddings model;
    - ``forked``, where its runs can be forked with fields changed (docs/experiments.md,
      "Forks"), set as ``staticmethod(...)``: the ``evolve`` and ``fast_fold`` declared beside
      it take ``run.forked`` with it (``maai.domain.forks.forking_evolve``, ``forking_fold``);
      ``fork_rules_everywhere``: the fields a fork may change, the same at every point.
    """

    participant: ClassVar[ParticipantFactory]
    utility: ClassVar[UtilityFactory]
    fast_fold: ClassVar[Callable[[Iterable[Event], Any], Any] | None] = None
    _fast_fold_evolve: ClassVar[Any] = None
    fork_rules_everywhere: ClassVar[ForkRules] = ForkRules()
    """What :meth:`fork_rules` gives for every point (nothing changeable by default)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        forked, evolve, fast_fold = own.get("forked"), own.get("evolve"), own.get("fast_fold")
        if isinstance(forked, staticmethod):
            # run.forked goes to ``forked``; every other event to the reducer declared here.
            take = forked.__func__
            if isinstance(evolve, staticmethod):
                reducer = staticmethod(forking_evolve(evolve.__func__, take))
                cls.evolve = reducer  # type: ignore[method-assign,assignment]  # declared static
            if isinstance(fast_fold, staticmethod):
                cls.fast_fold = staticmethod(forking_fold(fast_fold.__func__, take))
        if "fast_fold" in cls.__dict__:
            # The fast fold stands for the reducer declared beside it, not one a subclass
            # or an instance puts in its place.
            cls._fast_fold_evolve = cls.evolve

    def fold(self, events: Iterable[Event], state: Any = None) -> Any:
        cls = type(self)
        fast = cls.fast_fold
        replaced = cls.evolve is not cls._fast_fold_evolve or "evolve" in vars(self)
        if fast is None or replaced:
            return super().fold(events, state)
        return fast(events, state)

    def simulated_participant(self, config: ExperimentConfig, who: str) -> SimulatedPolicy:
        embeddings = getattr(config, "embeddings", None)
        if who == EMBEDDER and embeddings is not None:
            return SimulatedEmbedder(embeddings.latency_ms)
        agent = config.agent(who)  # type: ignore[attr-defined]
        return type(self).participant(agent, config.seed)

    def simulated_utility(self, config: ExperimentConfig) -> SimulatedPolicy:
        return type(self).utility(config.seed)

    def fork_rules(self, point: str) -> ForkRules:
        return self.fork_rules_everywhere
