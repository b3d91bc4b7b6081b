"""Property tests of the collaboration game's rules (``domain/collaboration/rules.py``) over
the symmetric options and random valid option sets.

The oracles restate the SPEC's words (SPEC-collaboration C1, C2; docs/collaboration.md §1)
as plain branches, independently of the code:

- "both pick a collaborative option (any, not necessarily the same) → each gets the upside of
  its own option";
- "one collaborative, one individual → the collaborator gets its own option's downside, the
  other its guaranteed amount";
- "both individual → each its guaranteed amount";
- "strategy (collaborative / individual) and mismatch (strategies differ) are derived by code
  from the choices";
- "u* = (Y − D) / (U − D)": A 0.697, B 0.693, C 0.707 for the default numbers.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.collaboration.config import OptionConfig, symmetric_options
from maai.domain.collaboration.rules import (
    individual_option,
    mismatch,
    option_named,
    points,
    strategy_of,
    u_star,
)

NAMES = st.sampled_from(list("ABCDEFGHJKLMNPQRSTUVWXZ"))


@st.composite
def option_sets(draw: st.DrawFn) -> list[OptionConfig]:
    """A valid option set: 1–5 collaborative options (upside above downside), one individual
    option, unique names; the individual one anywhere in the list."""
    count = draw(st.integers(1, 5))
    names = draw(st.lists(NAMES, min_size=count + 1, max_size=count + 1, unique=True))
    options = []
    for name in names[:count]:
        downside = draw(st.integers(-500, 200))
        upside = draw(st.integers(downside + 1, 600))
        options.append(
            OptionConfig(name=name, kind="collaborative", upside=upside, downside=downside)
        )
    guaranteed = draw(st.integers(-100, 300))
    individual = OptionConfig(name=names[count], kind="individual", points=guaranteed)
    options.insert(draw(st.integers(0, count)), individual)
    return options


SETS = st.one_of(st.just(symmetric_options()), option_sets())


def expected_points(mine: OptionConfig, theirs: OptionConfig) -> int:
    """The SPEC's payoff rule, word for word, for the agent that chose ``mine``."""
    mine_collaborates = mine.kind == "collaborative"
    theirs_collaborates = theirs.kind == "collaborative"
    if mine_collaborates and theirs_collaborates:
        return mine.upside  # type: ignore[return-value]  # each the upside of its own option
    if mine_collaborates and not theirs_collaborates:
        return mine.downside  # type: ignore[return-value]  # the collaborator: its downside
    if not mine_collaborates and theirs_collaborates:
        return mine.points  # type: ignore[return-value]  # the other: its guaranteed amount
    return mine.points  # type: ignore[return-value]  # both individual: each its guaranteed


def outcome(mine: OptionConfig, theirs: OptionConfig) -> tuple[int, int]:
    """Both agents' points as the code computes them from the two choices."""
    return (
        points(mine, strategy_of(theirs)),
        points(theirs, strategy_of(mine)),
    )


@settings(max_examples=300, deadline=None)
@given(data=st.data(), first=SETS, second=SETS)
def test_points_follow_the_payoff_rule_for_any_pair_of_choices(
    data: st.DataObject, first: list[OptionConfig], second: list[OptionConfig]
) -> None:
    mine = data.draw(st.sampled_from(first), label="agent 1 chooses")
    theirs = data.draw(st.sampled_from(second), label="agent 2 chooses")
    assert outcome(mine, theirs) == (expected_points(mine, theirs), expected_points(theirs, mine))


@settings(max_examples=200, deadline=None)
@given(options=SETS, data=st.data())
def test_both_collaborating_pays_each_its_own_upside_whatever_the_partner_picked(
    options: list[OptionConfig], data: st.DataObject
) -> None:
    collaborative = [o for o in options if o.kind == "collaborative"]
    mine = data.draw(st.sampled_from(collaborative))
    theirs = data.draw(st.sampled_from(collaborative))  # "not necessarily the same"
    assert outcome(mine, theirs) == (mine.upside, theirs.upside)


@settings(max_examples=200, deadline=None)
@given(options=SETS, data=st.data())
def test_the_individual_option_pays_its_guaranteed_points_whatever_the_partner_does(
    options: list[OptionConfig], data: st.DataObject
) -> None:
    individual = individual_option(options)
    assert individual.kind == "individual"
    for partner in options:
        assert points(individual, strategy_of(partner)) == individual.points


@settings(max_examples=300, deadline=None)
@given(data=st.data(), first=SETS, second=SETS)
def test_strategies_and_mismatch_are_derived_from_the_choices(
    data: st.DataObject, first: list[OptionConfig], second: list[OptionConfig]
) -> None:
    mine = data.draw(st.sampled_from(first))
    theirs = data.draw(st.sampled_from(second))
    # The strategy is the kind of the option chosen, nothing else.
    assert strategy_of(mine) == mine.kind and strategy_of(theirs) == theirs.kind
    # Mismatch: the strategies differ.
    assert mismatch(strategy_of(mine), strategy_of(theirs)) is (mine.kind != theirs.kind)
    # An option is found by its name, in any case.
    assert option_named(first, mine.name.lower()) == mine


@settings(max_examples=300, deadline=None)
@given(options=option_sets(), data=st.data())
def test_u_star_is_the_break_even_belief(options: list[OptionConfig], data: st.DataObject) -> None:
    """u* = (Y − D) / (U − D), exactly: at belief u* collaborating pays Y in expectation."""
    individual = individual_option(options)
    option = data.draw(st.sampled_from([o for o in options if o.kind == "collaborative"]))
    assert option.upside is not None and option.downside is not None
    assert individual.points is not None
    expected = Fraction(individual.points - option.downside, option.upside - option.downside)
    found = u_star(option, individual)
    assert found == expected
    assert found * option.upside + (1 - found) * option.downside == individual.points


def test_u_star_of_the_default_numbers_is_as_the_spec_says() -> None:
    options = symmetric_options()
    individual = individual_option(options)
    found = {o.name: round(float(u_star(o, individual)), 3) for o in options if o.name != "Y"}
    assert found == {"A": 0.697, "B": 0.693, "C": 0.707}


def test_the_default_points_are_the_spec_table() -> None:
    table = {o.name: (o.kind, o.upside, o.downside, o.points) for o in symmetric_options()}
    assert table == {
        "A": ("collaborative", 111, -90, None),
        "B": ("collaborative", 92, -45, None),
        "C": ("collaborative", 77, -15, None),
        "Y": ("individual", None, None, 50),
    }
