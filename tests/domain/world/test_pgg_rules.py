"""The public-goods game's rules (docs/world.md §5) on hand-checked cases, and the payoff
rule against an independent oracle over random games."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from hypothesis import given
from hypothesis import strategies as st

from maai.domain.world.pgg import announcement_differences, payoffs, rounded_share, whose_turn


def test_payoffs_by_hand() -> None:
    # Σc = 41, share = 1.6 × 41 / 4 = 16.4
    got = payoffs({"A": 19, "B": 1, "C": 18, "D": 3}, dict.fromkeys("ABCD", 20), 1.6)
    assert got == {"A": 17.4, "B": 35.4, "C": 18.4, "D": 33.4}
    assert rounded_share({"A": 19, "B": 1, "C": 18, "D": 3}, 1.6) == 16.4


def test_rounding_is_half_even_on_the_exact_value() -> None:
    # share = 1.5 × 1 / 3 = 0.5; 0.005 cases: m = 1.01, Σc = 1, N = 2 → share 0.505 → 0.50
    assert payoffs({"A": 1, "B": 0}, {"A": 0, "B": 0}, 1.01) == {"A": -0.5, "B": 0.5}
    # 0.515 rounds to 0.52 (half-even: 1 is odd)
    assert payoffs({"A": 1, "B": 0}, {"A": 1, "B": 0}, 1.03) == {"A": 0.52, "B": 0.52}


def test_per_player_endowments() -> None:
    got = payoffs({"A": 10, "B": 0}, {"A": 30, "B": 10}, 2.0)
    assert got == {"A": 30.0, "B": 20.0}


@given(
    st.lists(st.integers(0, 50), min_size=2, max_size=6),
    st.sampled_from(["1.2", "1.6", "2", "0.7", "1.75"]),
)
def test_payoffs_match_an_independent_oracle(cs: list[int], m: str) -> None:
    names = [f"p{i}" for i in range(len(cs))]
    contributions = dict(zip(names, cs, strict=True))
    endowments = dict.fromkeys(names, 50)
    got = payoffs(contributions, endowments, float(m))
    total = Decimal(sum(cs))
    for name, c in contributions.items():
        exact = Decimal(50 - c) + Decimal(m) * total / Decimal(len(cs))
        want = exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        assert Decimal(str(got[name])) == want


def test_a_turn_begins_when_the_previous_player_has_left() -> None:
    order = ["A", "B", "C"]
    room = "Booth"
    assert whose_turn(order, {}, {"A": "Hall"}, room) == "A"
    # A contributed but is still inside: nobody's turn yet.
    assert whose_turn(order, {"A": 5}, {"A": "Booth", "B": "Hall"}, room) is None
    assert whose_turn(order, {"A": 5}, {"A": "Hall", "B": "Hall"}, room) == "B"
    assert whose_turn(order, dict.fromkeys(order, 1), {}, room) is None


def test_an_announcement_is_compared_within_half_a_cent() -> None:
    computed = {"A": 17.4, "B": 35.4}
    assert announcement_differences({"A": 17.4, "B": 35.4}, computed) == []
    assert announcement_differences({"A": 17.404, "B": 35.4}, computed) == []
    assert announcement_differences({"A": 18.4, "B": 35.4, "Z": 1}, computed) == [
        "A: announced 18.4, computed 17.40",
        "Z: announced but not a player",
    ]
    assert announcement_differences({"A": 17.4}, computed) == ["B: not announced (computed 35.40)"]
