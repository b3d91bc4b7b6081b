"""Protocols as walks: generators that read the state and yield what is still needed.

A walk runs the protocol from the start against the recorded state. Where a slot is already
filled it reads the recorded value and goes on; where it is not, it yields what is needed
(an event it can derive now, or a model call) and is abandoned. ``parallel`` runs several
walks side by side and yields all their needs at once, which is how concurrent steps (Phase 1
agents, polls, ballots, memory updates) are issued together.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Hashable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from immutables import Map

from maai.domain.calls import ModelRequest
from maai.domain.events import Event

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Emit:
    event: Event


class Call:
    """A model call a walk needs: its address, and its request, built the first time it is
    read. A walk passes by every call still in flight at each decision, and the engine sends
    only the new ones: built at once, the requests of the calls in flight would be rendered
    again at every answer (most of a large run's ``decide`` time). ``Call(request)`` is
    one already built; ``Call.later(address, build)`` builds it on first use. ``build`` must
    read nothing that may change later (a walk's values and its state are fixed)."""

    __slots__ = ("address", "_build", "_request")

    def __init__(self, request: ModelRequest) -> None:
        self.address: str = request.address
        self._build: Callable[[], ModelRequest] | None = None
        self._request: ModelRequest | None = request

    @classmethod
    def later(cls, address: str, build: Callable[[], ModelRequest]) -> Call:
        call = cls.__new__(cls)
        call.address, call._build, call._request = address, build, None
        return call

    @property
    def request(self) -> ModelRequest:
        request = self._request
        if request is None:
            assert self._build is not None
            request = self._build()
            if request.address != self.address:
                raise ValueError(
                    f"the call at {self.address!r} built a request for {request.address!r}"
                )
            # The builder (and the state it holds) is no longer needed.
            self._request, self._build = request, None
        return request

    @property
    def built(self) -> bool:
        """Whether the request has been built (for tests and benchmarks)."""
        return self._request is not None

    def __eq__(self, other: object) -> bool:
        # As when a call was its request: equal requests (built to be compared).
        if not isinstance(other, Call):
            return NotImplemented
        return self.address == other.address and self.request == other.request

    __hash__ = None  # type: ignore[assignment]  # a request is not hashable either

    def __repr__(self) -> str:
        return f"Call({self.address!r}{'' if self.built else ', not built yet'})"


Need = Emit | Call
Walk = Generator[list[Need], None, T]


class Abandoned(RuntimeError):
    """A walk was resumed after it yielded its needs; walks are never resumed."""


def wait(needs: list[Need]) -> Generator[list[Need], None, NoReturn]:
    yield needs
    raise Abandoned("a walk was resumed after yielding")


def parallel(walks: list[Walk[T]]) -> Walk[list[T]]:
    results: list[T] = []
    needs: list[Need] = []
    for walk in walks:
        try:
            needs.extend(next(walk))
        except StopIteration as stop:
            results.append(stop.value)
        finally:
            walk.close()
    if needs:
        yield from wait(each_call_once(needs))
    return results


def each_call_once(needs: list[Need]) -> list[Need]:
    """The needs without repeats of one call: walks side by side may need the same
    content-addressed call (an embedding of a text two agents rank), which is made once."""
    seen: set[str] = set()
    unique: list[Need] = []
    for need in needs:
        if isinstance(need, Call):
            if need.address in seen:
                continue
            seen.add(need.address)
        unique.append(need)
    return unique


class Scope:
    """A token for one part of a state (e.g. one agent's own history). The reducer puts a
    new token in place whenever an event may change what a walk of that part reads, so a
    walk's outcome stored on the token is valid exactly as long as the token is current.
    The outcomes live on the token, not in a global cache: a state that is dropped takes them
    along, and two histories branching from one state never share a token."""

    __slots__ = ("outcomes", "derived")

    def __init__(self) -> None:
        self.outcomes: dict[str, tuple[bool, Any]] = {}
        # Anything else derived from the part of the state the token stands for, valid as
        # long as the outcomes are (e.g. what an agent observed in the last tick).
        self.derived: dict[Hashable, Any] = {}


_NO_SCOPES: Map[str, Scope] = Map()


class Scopes:
    """The memo token (``Scope``) of each agent's own walk. The reducer renews one agent's
    token (``renew``) or all of them (a new ``Scopes()``), both in O(log n) at most: the
    tokens of agents not renewed since the last renewal of all live in one table, shared by
    the states that follow it and filled on first use. Sharing them is sound: in those
    states, no event has touched these agents since. Derived data: no part of a state's
    value."""

    __slots__ = ("_own", "_shared")

    def __init__(self) -> None:
        self._own: Map[str, Scope] = _NO_SCOPES
        self._shared: dict[str, Scope] = {}

    def get(self, name: str) -> Scope:
        scope = self._own.get(name)
        if scope is None:
            scope = self._shared.get(name)
            if scope is None:
                scope = self._shared.setdefault(name, Scope())
        return scope

    def renew(self, name: str) -> Scopes:
        new = object.__new__(Scopes)
        new._own = self._own.set(name, Scope())
        new._shared = self._shared
        return new


def memoized(scope: Scope | None, name: str, start: Callable[[], Walk[T]]) -> Walk[T]:
    """The walk ``start()``, remembered on ``scope``: while the scope is unchanged, walking it
    again gives the same needs (or result) without running it."""
    outcome = scope.outcomes.get(name) if scope is not None else None
    if outcome is None:
        walk = start()
        try:
            outcome = (False, next(walk))
        except StopIteration as stop:
            outcome = (True, stop.value)
        finally:
            walk.close()
        if scope is not None:
            scope.outcomes[name] = outcome
    finished, value = outcome
    if finished:
        return value  # type: ignore[return-value]  # a finished walk's value is its T
    yield from wait(value)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Decision:
    """What must happen next: events derivable now (already folded into ``state``), model
    calls to make (``needed``; their requests built on first use), or ``done`` when the
    protocol has nothing left."""

    events: list[Event] = field(default_factory=list)
    needed: list[Call] = field(default_factory=list)
    done: bool = False
    state: Any = None

    @property
    def calls(self) -> list[ModelRequest]:
        """Every needed call's request, built now where it was not yet."""
        return [call.request for call in self.needed]


def run_walk(
    state: Any,
    protocol: Callable[[Any], Walk[None]],
    evolve: Callable[[Any, Event], Any],
    max_rounds: int = 100_000,
) -> Decision:
    """Walk the protocol; fold every derivable event and walk again until only model calls
    (or nothing) remain."""
    events: list[Event] = []
    for _ in range(max_rounds):
        walk = protocol(state)
        try:
            needs = next(walk)
        except StopIteration:
            return Decision(events=events, done=True, state=state)
        finally:
            walk.close()
        emits = [n.event for n in needs if isinstance(n, Emit)]
        if not emits:
            calls = [n for n in needs if isinstance(n, Call)]
            return Decision(events=events, needed=calls, state=state)
        for event in emits:
            state = evolve(state, event)
            events.append(event)
    raise RuntimeError("protocol walk did not settle")
