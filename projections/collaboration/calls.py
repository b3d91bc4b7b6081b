"""Model calls of a collaboration run, grouped by address: requests, answer, failed transport
attempts and the answer events that read it; and where an address sits in the game.

Addresses are fixed by the protocol: ``c/<agent>/initial/<n>`` (step 1),
``c/t<k>/<agent>/<n>`` (turn ``k``, 2 … 2n+1), ``c/<agent>/decision/<n>``, and a utility
extraction ``<participant address>/extract/<u>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from maai.domain.address import CallAddress
from maai.projections.calls import Call as Call
from maai.projections.calls import CallList
from maai.projections.calls import collect_calls as collect_generic
from maai.projections.history import History

_INITIAL = re.compile(r"^c/(?P<agent>[^/]+)/initial/(?P<n>\d+)$")
_TURN = re.compile(r"^c/t(?P<step>\d+)/(?P<agent>[^/]+)/(?P<n>\d+)$")
_DECISION = re.compile(r"^c/(?P<agent>[^/]+)/decision/(?P<n>\d+)$")


@dataclass(frozen=True, slots=True)
class Site:
    """Where a participant's call sits: ``kind`` initial, turn or decision; ``step`` 0 for
    the initial belief, ``k`` for turn k, None for the decision; ``attempt`` its number."""

    kind: str | None
    agent: str | None
    step: int | None
    attempt: int | None


def site_of(address: str) -> Site:
    """The site of a participant's call (an extraction sits where the answer it reads
    sits)."""
    base = CallAddress.parse(address).participant
    for pattern, kind in ((_INITIAL, "initial"), (_TURN, "turn"), (_DECISION, "decision")):
        match = pattern.match(base)
        if match:
            step = 0 if kind == "initial" else None
            if kind == "turn":
                step = int(match.group("step"))
            return Site(kind, match.group("agent"), step, int(match.group("n")))
    return Site(None, None, None, None)


def collect_calls(history: History) -> CallList:
    """Every requested call, in the order of its first request."""
    return collect_generic(history)
