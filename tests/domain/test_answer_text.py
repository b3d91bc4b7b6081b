"""What every parser reads (docs/rules.md "Reading bounds"): whitespace runs bounded, JSON
within its depth and digit bounds, a key given twice with two values ambiguous."""

from __future__ import annotations

import json

import pytest

from maai.domain.answer_text import (
    MAX_JSON_DEPTH,
    MAX_JSON_DIGITS,
    MAX_READ_CHARS,
    JsonProblem,
    find_json_object,
    loads,
    normalise_whitespace,
    too_long,
)


def test_whitespace_runs_are_bounded_and_nothing_else_changes() -> None:
    text = "Hello\u00a0\u00a0  there.\t\tBye   \n\n\n\n" + " " * 40 + "- item\r\nend  "
    assert normalise_whitespace(text) == "Hello there. Bye\n\n" + " " * 16 + "- item\nend"
    assert normalise_whitespace("a b\n  c") == "a b\n  c"


def test_an_answer_of_spaces_is_short_once_normalised() -> None:
    assert normalise_whitespace(" " * 100_000 + "x") == " " * 16 + "x"
    assert too_long("x" * (MAX_READ_CHARS + 1)) and not too_long("x" * MAX_READ_CHARS)


def test_json_within_the_bounds_reads_as_json() -> None:
    nested = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert loads(nested) == json.loads(nested)
    assert loads("9" * MAX_JSON_DIGITS) == int("9" * MAX_JSON_DIGITS)
    assert loads('{"to": "Hall", "to": "Hall"}') == {"to": "Hall"}


@pytest.mark.parametrize(
    ("text", "ambiguous"),
    [
        ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), False),
        ("9" * (MAX_JSON_DIGITS + 1), False),
        ('{"amount": ' + "9" * 5_000 + "}", False),
        ('{"to": "Hall", "to": "Booth"}', True),
    ],
)
def test_json_beyond_the_bounds_is_a_problem_not_a_crash(text: str, ambiguous: bool) -> None:
    with pytest.raises(JsonProblem) as problem:
        loads(text)
    assert problem.value.ambiguous is ambiguous


def test_the_json_object_is_found_in_a_fence_or_among_words() -> None:
    assert find_json_object('Sure.\n```json\n{"a": 1}\n```') == {"a": 1}
    assert find_json_object('I will wait: {"a": 1} ok') == {"a": 1}
    assert find_json_object("```" * 1_000) is None
    assert isinstance(find_json_object('{"a": 1, "a": 2}'), JsonProblem)
