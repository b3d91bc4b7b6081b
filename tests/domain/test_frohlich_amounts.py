"""Dollar amounts in the formats participants write them."""

from __future__ import annotations

import pytest

from maai.domain.frohlich.amounts import find_amounts, parse_amount


@pytest.mark.parametrize(
    ("text", "dollars"),
    [
        ("$15,000", 15_000),
        ("15000", 15_000),
        ("15k", 15_000),
        ("15K", 15_000),
        ("$15k", 15_000),
        ("15 k", 15_000),
        ("15.5k", 15_500),
        ("15,5k", 15_500),
        ("15.000", 15_000),
        ("15 000", 15_000),
        ("15\u00a0000", 15_000),
        ("15\u202f000", 15_000),
        ("15'000", 15_000),
        ("1,50,000", 150_000),
        ("USD 15000", 15_000),
        ("USD15000", 15_000),
        ("15000 USD", 15_000),
        ("15000 dollars", 15_000),
        ("$15,000.00", 15_000),
        ("15,000$", 15_000),
        ("15.000 $", 15_000),
        ("US$ 15.000,00", 15_000),
        ("€15.000", 15_000),
        ("15 thousand", 15_000),
        ("15 grand", 15_000),
        ("fifteen thousand", 15_000),
        ("Fifteen Thousand Dollars", 15_000),
        ("twelve thousand five hundred", 12_500),
        ("one hundred and twenty thousand", 120_000),
        ("a thousand dollars", 1_000),
        ("a floor of $13,000.", 13_000),
        ("$15,000 (fifteen thousand dollars)", 15_000),
        ("1,000,000", 1_000_000),
        ("2 million", 2_000_000),
    ],
)
def test_accepted_formats(text: str, dollars: int) -> None:
    assert parse_amount(text) == dollars


@pytest.mark.parametrize(
    "text",
    [
        "",
        "no amount here",
        "-15,000",
        "−$15,000",
        "$-15,000",
        "0",
        "$0",
        "15.5",  # dollars and cents, not whole dollars
        "$15,000.50",
        "12.000,50",
        "12,000-15,000",
        "between $12,000 and $15,000",
        "$12,000 or $13,000",
        "15,000,5",
        "1.500k",  # 1.5k or 1,500k?
        "50%",
        "one",  # a word, not an amount
        "15kg",
    ],
)
def test_rejected(text: str) -> None:
    assert parse_amount(text) is None


def test_mentions_keep_their_position_and_marking() -> None:
    text = "Distribution 3 has a floor of $14,000 and 13 000 is too low"
    mentions = find_amounts(text)
    assert [(m.text, m.whole_dollars, m.marked) for m in mentions] == [
        ("3", 3, False),
        ("$14,000", 14_000, True),
        ("13 000", 13_000, False),
    ]
    assert text[mentions[1].start : mentions[1].end].strip() == "$14,000"
