"""What a deterministic parser says about a participant's text: ``Parsed(value)``,
``Undecided(reason)`` (it cannot tell; the utility agent is asked next) or
``Invalid(reason)`` (decided: not an acceptable answer; the reason is addressed to the
participant). A parser prefers Undecided to a guess: a wrong value silently corrupts the
data, an Undecided costs one utility-agent call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar, Union

T = TypeVar("T")


@dataclass(frozen=True)
class Parsed(Generic[T]):
    value: T


@dataclass(frozen=True)
class Undecided:
    reason: str


@dataclass(frozen=True)
class Invalid:
    reason: str


ParseResult: TypeAlias = Union[Parsed[T], Undecided, Invalid]  # noqa: UP007 (generic alias)
