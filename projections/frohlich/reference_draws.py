"""The audit's own re-derivation of a run's random draws (docs/architecture.md, "Randomness";
docs/frohlich.md §7): every draw comes from a stream named by a label, seeded with the
SHA-256 digest of ``"<seed>:<label>"`` read as a big-endian integer and fed to
``random.Random``. Written from those rules, not from domain/frohlich or
domain/random_streams, so a wrong draw in the engine cannot hide behind the same code."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeVar

from maai.projections.frohlich import reference

T = TypeVar("T")


def named_stream(seed: int, label: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{label}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def multiplier(
    fixed: float | None, low: float | None, high: float | None, seed: int, label: str
) -> float | None:
    """A fixed multiplier, else a uniform draw on [low, high]; ``None`` when the range is
    not recorded (the audit cannot tell)."""
    if fixed is not None:
        return fixed
    if low is None or high is None or low > high:
        return None
    if low == high:
        return low
    return named_stream(seed, label).uniform(low, high)


def _exact(weight: float | int | Fraction) -> Fraction:
    # A float counts as the decimal it prints as (0.05 is one twentieth, not its binary value).
    return Fraction(repr(weight)) if isinstance(weight, float) else Fraction(weight)


def income_class(seed: int, label: str, chances: Sequence[float | int | Fraction]) -> str:
    """The class drawn with the chances given highest class first (``reference.CLASSES``):
    one integer drawn below the total of the chances over their common denominator, the
    classes taking consecutive slices of it in that order."""
    exact = [_exact(c) for c in chances]
    denominator = math.lcm(*(c.denominator for c in exact))
    slices = [int(c * denominator) for c in exact]
    point = named_stream(seed, label).randrange(sum(slices))
    for name, width in zip(reference.CLASSES, slices, strict=True):
        if point < width:
            return name
        point -= width
    raise AssertionError("the point lies below the total")


def speaking_order(
    seed: int, label: str, names: Sequence[str], previous_last: str | None
) -> list[str] | None:
    """The stream's shuffle of the names; when the previous round's last speaker comes out
    first, it trades places with the speaker the ``<label>/swap`` stream picks among the
    others. ``None`` for fewer than two or repeated names (no order can be drawn)."""
    if len(names) < 2 or len(set(names)) != len(names):
        return None
    order = list(names)
    named_stream(seed, label).shuffle(order)
    if previous_last is not None and order[0] == previous_last:
        other = named_stream(seed, f"{label}/swap").randrange(1, len(order))
        order[0], order[other] = order[other], order[0]
    return order


def uniform_choice(seed: int, label: str, options: Sequence[T]) -> T:
    return options[named_stream(seed, label).randrange(len(options))]
