"""Forks, as pure rules (docs/forks.md): where a run may be forked, what a ``--set`` changes
in a config, which changes an experiment lets through, and how a state takes the config a
``run.forked`` event gives it. No I/O: the runtime reads the parent and writes the child."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yaml

from maai.domain.events import Event, RunForked, RunStarted

S = TypeVar("S")

SAME_DRAWS = "same"
OWN_DRAWS = "own"


class ForkError(ValueError):
    """A fork that cannot be made as asked: the message is one line naming what and why."""


@dataclass(frozen=True)
class ForkRules:
    """What an experiment lets change in its config after a fork point. Paths are dotted,
    list items named by their ``name`` (``agents.alice.model``); patterns use ``*`` for one
    part and cover everything below them (``manipulator`` covers ``manipulator.agent``).
    ``refused`` says why a path may not change."""

    changeable: tuple[str, ...] = ()
    refused: Mapping[str, str] = field(default_factory=dict)

    def refusal(self, path: str, point: str) -> str | None:
        """Why ``path`` may not change after ``point``; ``None`` if it may. The most
        specific pattern that covers the path decides (a refusal where they tie)."""
        best: tuple[int, int, str | None] | None = None
        for pattern, reason in self.refused.items():
            if _covers(pattern, path):
                rank = (pattern.count(".") + 1, 1, reason)
                best = rank if best is None or rank[:2] > best[:2] else best
        for pattern in self.changeable:
            if _covers(pattern, path):
                rank = (pattern.count(".") + 1, 0, None)
                best = rank if best is None or rank[:2] > best[:2] else best
        if best is not None:
            return best[2]
        allowed = ", ".join(self.changeable) or "nothing"
        return f"not a field that may change after {point} (may: {allowed})"


def _covers(pattern: str, path: str) -> bool:
    parts, wanted = path.split("."), pattern.split(".")
    if len(parts) < len(wanted):
        return False
    return fnmatch.fnmatchcase(".".join(parts[: len(wanted)]), pattern)


@dataclass(frozen=True)
class ForkPoint:
    """A place a run can be forked: after its event ``seq``, no call in flight."""

    name: str
    seq: int


def parse_set(item: str) -> tuple[str, Any]:
    """``PATH=VALUE`` with VALUE read as YAML (``3``, ``null``, ``{agent: bob}``)."""
    path, sep, text = item.partition("=")
    path = path.strip()
    if not sep or not path:
        raise ForkError(f"--set {item!r}: expected PATH=VALUE")
    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as exc:
        raise ForkError(
            f"--set {path}: the value is not YAML ({str(exc).splitlines()[0]})"
        ) from None
    return path, value


def apply_set(config: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``config`` with ``path`` set to ``value``; a path that names nothing in the
    config (past its last existing dict) is refused."""
    parts = path.split(".")
    new = _copy(config)
    node: Any = new
    for depth, part in enumerate(parts[:-1]):
        node = _child(node, part, ".".join(parts[: depth + 1]))
    last = parts[-1]
    if isinstance(node, dict):
        if last not in node:
            raise ForkError(f"--set {path}: the config has no field {last!r} there")
        node[last] = value
    elif isinstance(node, list):
        node[_index(node, last, path)] = value
    else:
        raise ForkError(f"--set {path}: {'.'.join(parts[:-1])} is not a section")
    return new


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _child(node: Any, part: str, where: str) -> Any:
    if isinstance(node, dict):
        if part not in node or node[part] is None:
            raise ForkError(f"--set {where}: the config has no section {part!r} there")
        return node[part]
    if isinstance(node, list):
        return node[_index(node, part, where)]
    raise ForkError(f"--set {where}: not a section")


def _index(items: list[Any], part: str, where: str) -> int:
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("name") == part:
            return i
    if part.isdigit() and int(part) < len(items):
        return int(part)
    raise ForkError(f"--set {where}: no item named {part!r}")


def changed_paths(before: Any, after: Any, prefix: str = "") -> list[str]:
    """The dotted paths whose values differ (list items of dicts keyed by ``name``)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in before or key not in after:
                out.append(path)
            else:
                out.extend(changed_paths(before[key], after[key], path))
        return out
    if isinstance(before, list) and isinstance(after, list):
        named = all(isinstance(i, dict) and "name" in i for i in [*before, *after])
        if named:
            b = {i["name"]: i for i in before}
            a = {i["name"]: i for i in after}
            if list(b) != list(a):
                return [prefix]
            return [p for n in b for p in changed_paths(b[n], a[n], f"{prefix}.{n}")]
        if len(before) != len(after):
            return [prefix]
        return [
            p
            for i, (x, y) in enumerate(zip(before, after, strict=True))
            for p in changed_paths(x, y, f"{prefix}.{i}")
        ]
    return [] if before == after and type(before) is type(after) else [prefix]


def check_changes(rules: ForkRules, point: str, paths: Sequence[str]) -> None:
    for path in paths:
        reason = rules.refusal(path, point)
        if reason is not None:
            raise ForkError(f"--set {path}: cannot change after {point}: {reason}")


def restarted(started: RunStarted, forked: RunForked) -> RunStarted:
    """The run's ``run.started`` as the fork's state holds it: the fork's config and seed."""
    return started.model_copy(update={"config": forked.config, "seed": forked.seed})


def fold_across_forks(
    events: Iterable[Event],
    state: S | None,
    fold: Callable[[Iterable[Event], S | None], S],
    forked: Callable[[S, RunForked], S],
) -> S:
    """An experiment's ``fold`` over events that may hold ``run.forked`` events: each
    stretch between them folded as usual, each fork applied with ``forked``."""
    stream = iter(events)
    held: list[RunForked] = []

    def stretch() -> Iterator[Event]:
        for event in stream:
            if isinstance(event, RunForked):
                held.append(event)
                return
            yield event

    current = fold(stretch(), state)
    while held:
        current = forked(current, held.pop())
        current = fold(stretch(), current)
    return current


class BoundaryScan:
    """Fed a run's events in order (seq, type, and the call address of a request or an
    answer), finds its fork points: after an answer (or the run's start) with no call in
    flight. A step's named points (``names(address)``) lie at the last such boundary before
    the first request of the step; ``seq:N`` at every boundary; an address prefix (a point
    with ``/``) at the last boundary before the first request under it."""

    def __init__(self, names: Callable[[str], Sequence[str]]) -> None:
        self._names = names
        self._in_flight: set[str] = set()
        self.boundaries: list[int] = []
        self.named: dict[str, int] = {}
        self.first_request: list[tuple[int, str]] = []  # (boundary before, address)
        self.failed_at: int | None = None
        self.last = 0

    def add(self, seq: int, type_: str, address: str | None) -> None:
        self.last = seq
        if type_ == "model.requested" and address is not None:
            if address not in self._in_flight:
                last = self.boundaries[-1] if self.boundaries else None
                if last is not None:
                    self.first_request.append((last, address))
                    for name in self._names(address):
                        self.named.setdefault(name, last)
            self._in_flight.add(address)
        elif type_ == "model.completed" and address is not None:
            self._in_flight.discard(address)
            if not self._in_flight:
                self.boundaries.append(seq)
        elif type_ in ("run.started", "run.forked") and not self._in_flight:
            self.boundaries.append(seq)
        elif type_ == "run.failed" and self.failed_at is None:
            self.failed_at = seq

    def found(self, point: str) -> bool:
        """Whether what was fed so far settles where ``point`` is (the rest of the run
        cannot move it)."""
        if point.startswith("seq:"):
            text = point[4:]
            return not text.isdigit() or bool(self.boundaries and self.boundaries[-1] > int(text))
        if point in self.named:
            return True
        return "/" in point and any(a.startswith(point) for _, a in self.first_request[-1:])

    def resolve(self, point: str) -> int:
        """The seq of ``point``; :class:`ForkError` naming why there is none."""
        if point.startswith("seq:"):
            text = point[4:]
            if not text.isdigit():
                raise ForkError(f"--at {point}: seq:N needs a number")
            seq = int(text)
            if seq > self.last:
                raise ForkError(f"--at {point}: past the run's head (seq {self.last})")
            if seq not in self.boundaries:
                raise ForkError(
                    f"--at {point}: not a boundary (a call is in flight there, or it is not "
                    "after an answer); --list-points names the boundaries"
                )
            return seq
        if point in self.named:
            return self.named[point]
        if "/" in point:
            for seq, address in self.first_request:
                if address.startswith(point):
                    return seq
        raise ForkError(f"--at {point}: no such point in this run (--list-points names them)")

    def points(self) -> list[ForkPoint]:
        return sorted(
            (ForkPoint(name, seq) for name, seq in self.named.items()), key=lambda p: p.seq
        )


def forking_evolve(
    evolve: Callable[[S, Event], S], forked: Callable[[S, RunForked], S]
) -> Callable[[S, Event], S]:
    """An experiment's reducer that takes ``run.forked`` with ``forked``."""

    def evolved(state: S, event: Event) -> S:
        if isinstance(event, RunForked):
            return forked(state, event)
        return evolve(state, event)

    return evolved


def forking_fold(
    fold: Callable[[Iterable[Event], S | None], S], forked: Callable[[S, RunForked], S]
) -> Callable[[Iterable[Event], S | None], S]:
    """An experiment's fast fold that takes ``run.forked`` with ``forked``."""

    def folded(events: Iterable[Event], state: S | None = None) -> S:
        return fold_across_forks(events, state, fold, forked)

    return folded
