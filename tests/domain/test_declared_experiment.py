"""The base classes of an experiment (``DeclaredExperiment``) and of its views (``Views``):
a fast fold stands for the reducer declared beside it only; a declared ``forked`` takes
``run.forked`` in both; the views' defaults say "no votes"; ``lazy`` calls the function named
in the views' own package."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from maai.domain.collaboration.experiment import Collaboration
from maai.domain.events import RunForked
from maai.domain.experiment import VoteOutcome
from maai.domain.forks import ForkRules
from maai.projections.collaboration import VIEWS as COLLABORATION_VIEWS
from maai.projections.views import Views


class WithFastFold(Collaboration):
    fast_fold = staticmethod(lambda events, state=None: "folded fast")


def test_the_fast_fold_stands_for_its_own_reducer() -> None:
    assert WithFastFold().fold([]) == "folded fast"


def test_a_replaced_reducer_folds_through_evolve() -> None:
    seen: list[Any] = []

    class Replaced(WithFastFold):
        @staticmethod
        def evolve(state: Any, event: Any) -> Any:
            seen.append(event)
            return state

    assert Replaced().fold(["a", "b"], state="s") == "s"
    assert seen == ["a", "b"]

    instance = WithFastFold()
    instance.evolve = lambda state, event: state + event  # type: ignore[method-assign]
    assert instance.fold(["b", "c"], state="a") == "abc"


def test_views_default_to_no_votes() -> None:
    views = Views()
    assert views.audit_votes(None) is None  # type: ignore[arg-type]
    assert views.vote_problems(None) == []  # type: ignore[arg-type]
    assert views.describe_vote({"value": 3}) == "3"
    assert views.vote_outcome({"outcome": None}).line() == "outcome: the voting has not ended"


def test_a_vote_outcome_in_one_line() -> None:
    assert VoteOutcome(True, "(c) a floor", 3).line() == "outcome: agreement on (c) a floor"
    assert VoteOutcome(True, None, 3).line() == "outcome: no agreement after 3 round(s)"
    assert VoteOutcome(True, None, None).line() == "outcome: no agreement"


def test_lazy_calls_the_function_of_the_views_package() -> None:
    from maai.projections.collaboration.protocol import all_rules

    assert type(COLLABORATION_VIEWS).protocol_rules is all_rules
    assert COLLABORATION_VIEWS.protocol_rules() == all_rules()


def test_views_load_their_read_models_on_first_use() -> None:
    # A fresh interpreter: what `maai run` loads of an experiment's views is the views class
    # alone, until a read model is asked for.
    code = (
        "import sys\n"
        "from maai.domain import experiments\n"
        "views = experiments.get('collaboration').views()\n"
        "before = 'maai.projections.collaboration.transcript' in sys.modules\n"
        "views.transcript\n"
        "print(before, 'maai.projections.collaboration.transcript' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "True"], done.stderr


class ViewsOfThisPackage(Views):
    """Views whose package (tests.domain) has none of the read models' modules."""


def test_an_optional_read_model_its_package_lacks_reads_as_absent() -> None:
    views = ViewsOfThisPackage()
    assert getattr(views, "report", None) is None
    assert getattr(views, "study_report", None) is None
    with pytest.raises(ModuleNotFoundError, match="tests.domain.transcript"):
        views.transcript  # noqa: B018 -- reading it is what loads it


FORK = RunForked(
    parent_run="p",
    parent_seq=3,
    parent_hash="0" * 64,
    point="seq:3",
    changes={},
    draws="same",
    seed=1,
    config={},
)


class Forkable(Collaboration):
    """A reducer and a fast fold that keep the events they see, and a ``forked`` that marks
    where the fork came: declared together, as an experiment declares them."""

    evolve = staticmethod(lambda state, event: [*state, event])
    fast_fold = staticmethod(lambda events, state=None: [*(state or []), *events])
    forked = staticmethod(lambda state, event: [*state, ("forked", event.parent_run)])
    fork_rules_everywhere = ForkRules(changeable=("exchanges",))


def test_run_forked_goes_to_forked_in_the_reducer_and_the_fast_fold() -> None:
    experiment = Forkable()
    assert experiment.evolve(["a"], FORK) == ["a", ("forked", "p")]
    assert experiment.evolve(["a"], "b") == ["a", "b"]
    # The fast fold folds each stretch between forks and hands the fork to ``forked``.
    assert experiment.fold(["a", FORK, "b"], []) == ["a", ("forked", "p"), "b"]
    assert experiment.fork_rules("exchange:2") == ForkRules(changeable=("exchanges",))
