"""The game's parsers read only what the format says, and are undecided rather than guess."""

from __future__ import annotations

import pytest
from maai.domain.reading import Invalid, Parsed, Undecided

from maai_ultimatum.parsing import read_offer, read_response, reasoning_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I keep most.\nOFFER: 4", Parsed(4)),
        ("**Offer:** 3", Parsed(3)),
        ("OFFER: 4\nOFFER: 4", Parsed(4)),
        ("OFFER: 4\nOFFER: 5", Undecided("several different offers: [4, 5]")),
        ("I offer four points.", Undecided("no line 'OFFER: n'")),
        ("My offer: 3 or maybe 4", Undecided("no line 'OFFER: n'")),
        ("OFFER: 11", Invalid("Your offer must be a whole number from 0 to 10.")),
        ("OFFER: -1", Invalid("Your offer must be a whole number from 0 to 10.")),
    ],
)
def test_read_offer(text: str, expected: object) -> None:
    assert read_offer(text, pie=10) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ACCEPT", Parsed(True)),
        ("reject.", Parsed(False)),
        ("I thought about it.\n**REJECT**", Parsed(False)),
        ("ACCEPT\nREJECT", Undecided("neither or both of the lines 'ACCEPT' and 'REJECT'")),
        (
            "I would not accept that",
            Undecided("neither or both of the lines 'ACCEPT' and 'REJECT'"),
        ),
    ],
)
def test_read_response(text: str, expected: object) -> None:
    assert read_response(text) == expected


def test_the_reasoning_is_the_text_without_the_offer_line() -> None:
    assert reasoning_of("Fair enough.\nOFFER: 5") == "Fair enough."
    assert reasoning_of("OFFER: 5") is None
