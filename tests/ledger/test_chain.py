"""The hash chain's rules (``ledger.chain.ChainChecker``), which ``EventStore.verify_chain``
and ``maai verify`` both apply: each break is found where it is, with the reason users read
(and scripts may match), and a row's hash is checked only once its seq and link hold."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from maai.ledger import GENESIS_HASH, LedgerError
from maai.ledger.chain import ChainChecker


def hashes(n: int) -> list[str]:
    return [GENESIS_HASH] + [f"{seq:064x}" for seq in range(1, n + 1)]


def holds() -> bool:
    return True


def fed(
    rows: list[tuple[int, str, str, Callable[[], bool]]], head: int, last: int | None = None
) -> ChainChecker:
    chain = ChainChecker("r1", head)
    for row in rows:
        if not chain.add(*row):
            return chain
    chain.end(lambda: last if last is not None else head)
    return chain


def intact(n: int) -> list[tuple[int, str, str, Callable[[], bool]]]:
    h = hashes(n)
    return [(seq, h[seq - 1], h[seq], holds) for seq in range(1, n + 1)]


def finding(chain: ChainChecker) -> tuple[bool, int, int | None, str | None]:
    report = chain.report()
    assert report.run_id == "r1" and report.head_seq == chain.head
    return report.ok, report.events_checked, report.first_bad_seq, report.reason


def test_an_intact_chain_holds() -> None:
    assert finding(fed(intact(4), head=4)) == (True, 4, None, None)
    assert finding(fed([], head=0)) == (True, 0, None, None)


def test_a_missing_event_is_named() -> None:
    rows = intact(4)
    del rows[1]
    assert finding(fed(rows, head=4)) == (False, 1, 2, "event 2 is missing (next is 3)")
    assert finding(fed(intact(4)[:3], head=4)) == (False, 3, 4, "event 4 is missing (head is 4)")


def test_a_broken_link_is_named() -> None:
    rows = intact(3)
    rows[2] = (3, "ab" + rows[2][1][2:], rows[2][2], holds)
    assert finding(fed(rows, head=3)) == (
        False,
        2,
        3,
        "prev_hash does not match the previous event's hash",
    )
    first = [(1, "ab" + GENESIS_HASH[2:], hashes(1)[1], holds)]
    assert finding(fed(first, head=1))[2] == 1


@pytest.mark.parametrize(
    ("check", "reason"),
    [
        (lambda: False, "stored fields do not match the stored hash"),
        (lambda: (_ for _ in ()).throw(ValueError("bad time")), "cannot be hashed: bad time"),
        (lambda: (_ for _ in ()).throw(LedgerError("lone surrogate")), "lone surrogate"),
        (lambda: (_ for _ in ()).throw(TypeError("not text")), "cannot be hashed: not text"),
    ],
)
def test_a_hash_that_does_not_hold_is_named(check: Callable[[], bool], reason: str) -> None:
    rows = intact(3)
    rows[1] = (2, rows[1][1], rows[1][2], check)
    ok, checked, bad, said = finding(fed(rows, head=3))
    assert (ok, checked, bad) == (False, 1, 2)
    assert said is not None and said.startswith("stored fields") and said.endswith(reason)


def test_a_hash_is_checked_only_once_seq_and_link_hold() -> None:
    asked: list[int] = []

    def counted(seq: int) -> Callable[[], bool]:
        return lambda: asked.append(seq) is None

    h = hashes(3)
    rows = [(1, h[0], h[1], counted(1)), (3, h[2], h[3], counted(3))]
    assert not fed(rows, head=3).holds
    assert asked == [1]
    rows = [(1, h[0], h[1], counted(1)), (2, h[0], h[2], counted(2))]
    assert not fed(rows, head=3).holds
    assert asked == [1, 1]


def test_events_beyond_the_head_are_named_once_all_up_to_it_hold() -> None:
    assert finding(fed(intact(3), head=3, last=7)) == (
        False,
        3,
        4,
        "events up to seq 7 are stored beyond the head 3",
    )
    assert finding(fed(intact(3), head=3, last=4))[2:] == (
        4,
        "events up to seq 4 are stored beyond the head 3",
    )
    asked: list[bool] = []
    chain = ChainChecker("r1", 3)
    for row in intact(2):
        chain.add(*row)
    chain.end(lambda: asked.append(True) or 9)
    assert asked == []  # a missing event is the finding; what lies beyond is not asked
    assert chain.report().reason == "event 3 is missing (head is 3)"


def test_an_unreadable_event_is_the_break() -> None:
    chain = ChainChecker("r1", 5)
    for row in intact(2):
        chain.add(*row)
    chain.unreadable(3, "stored event cannot be parsed (oops)")
    chain.end(lambda: 5)
    assert finding(chain) == (False, 2, 3, "stored event cannot be parsed (oops)")
