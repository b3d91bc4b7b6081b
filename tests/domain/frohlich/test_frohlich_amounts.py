"""Dollar amounts in the formats participants write them."""

from __future__ import annotations

import time

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
        ("15.000 dollars", 15_000),
        ("1.500.000", 1_500_000),  # two dot groups: no decimal reading
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
        ("12 mil dólares", 12_000),
        ("12,5 mil", 12_500),
        ("12.000 dólares", 12_000),
        ("$13,000。", 13_000),
        ("12000美元", 12_000),
        ("底线为12000美元", 12_000),
        ("1万2千", 12_000),
        ("一万二千", 12_000),
        ("一万两千五百", 12_500),
        ("一万零五百", 10_500),
        ("1.2万", 12_000),
        ("十二万", 120_000),
        ("１３，０００", 13_000),
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
        "15.000",  # 15,000, or 15 with three decimals: only a currency says which
        "12.5",
        "一万二",  # twelve thousand to a speaker, but the unit is left out
        "1万2",
        "千万",  # a word ("by all means"), not a number
        "12,000，13,000",
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


def test_a_dot_grouped_figure_without_a_currency_has_no_value() -> None:
    (plain,) = find_amounts("a floor of 12.000")
    assert plain.value is None and not plain.marked
    (marked,) = find_amounts("a floor of $12.000")
    assert marked.whole_dollars == 12_000


def test_chinese_numerals_are_one_mention_marked_as_money() -> None:
    text = "分配3的底线是1万2千美元"
    mentions = find_amounts(text)
    assert [(m.text, m.whole_dollars, m.marked) for m in mentions] == [
        ("3", 3, False),
        ("1万2千美元", 12_000, True),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "一二三四五六七八九" * 5_000,
        "12345678901234567890" * 5_000,
        "12.000." * 5_000,
        "十" * 50_000,
    ],
)
def test_long_runs_of_digits_and_numerals_are_read_in_linear_time(text: str) -> None:
    # A numeral pattern that could split a run of digits would take minutes here.
    started = time.perf_counter()
    find_amounts(text)
    assert time.perf_counter() - started < 2.0
