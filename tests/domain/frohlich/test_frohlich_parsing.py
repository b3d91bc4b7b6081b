"""Parser behaviour beyond the corpus: result types, proposals, word limits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maai.domain.frohlich.parsing import (
    VOTE_PROPOSAL_PHRASE,
    Invalid,
    Parsed,
    Undecided,
    count_words,
    parse_ballot,
    parse_choice,
    parse_ranking,
    parse_vote_proposal,
    truncate_words,
)
from maai.domain.frohlich.types import Principle, PrincipleChoice


def test_the_proposal_phrase_is_detected_as_the_prompts_will_state_it() -> None:
    assert parse_vote_proposal(f"I support (c).\n{VOTE_PROPOSAL_PHRASE}")
    assert parse_vote_proposal(VOTE_PROPOSAL_PHRASE.lower())
    assert not parse_vote_proposal(f"I support (c). {VOTE_PROPOSAL_PHRASE}")
    assert not parse_vote_proposal("")


def test_ballot_reasons_speak_of_votes_and_choice_reasons_of_choices() -> None:
    ballot = parse_ballot("I vote for (d).")
    choice = parse_choice("I choose (d).")
    assert isinstance(ballot, Invalid) and ballot.reason.startswith("You voted for (d)")
    assert isinstance(choice, Invalid) and choice.reason.startswith("You chose (d)")
    assert "range" in choice.reason


def test_a_reason_never_suggests_an_amount() -> None:
    # An example figure in the retry prompt would anchor the participant's next answer.
    for text in ("I choose (c).", "I choose (d)."):
        result = parse_choice(text)
        assert isinstance(result, Invalid)
        assert not any(ch.isdigit() for ch in result.reason), result.reason
    echoed = parse_choice("I choose (c) with a floor of $-1.")
    assert isinstance(echoed, Invalid)
    assert "($-1)" in echoed.reason and "positive" in echoed.reason


def test_results_are_values() -> None:
    assert parse_choice("I choose (a).") == Parsed(PrincipleChoice(principle=Principle.FLOOR))
    assert parse_choice("(a) and (b)") == parse_choice("(a) and (b)")
    assert isinstance(parse_ranking("What do you mean?"), Undecided)


@settings(max_examples=100)
@given(text=st.text(max_size=200))
def test_parsers_never_raise(text: str) -> None:
    for parser in (parse_ranking, parse_choice, parse_ballot):
        assert isinstance(parser(text), Parsed | Undecided | Invalid)
    assert isinstance(parse_vote_proposal(text), bool)


def test_count_words() -> None:
    assert count_words("") == 0
    assert count_words("  one\ttwo\nthree  ") == 3


def test_truncate_words_keeps_the_original_spacing() -> None:
    text = "one  two\nthree four"
    assert truncate_words(text, 3) == "one  two\nthree"
    assert truncate_words(text, 10) == text
    assert truncate_words(text, 0) == ""


@settings(max_examples=100)
@given(text=st.text(max_size=200), limit=st.integers(0, 50))
def test_truncate_words_respects_the_limit(text: str, limit: int) -> None:
    cut = truncate_words(text, limit)
    assert count_words(cut) == min(limit, count_words(text))
    assert text.startswith(cut)
