"""How a participant reads the group in Phase 2, and where that leaves its own position.

Each speaker's latest public statement counts as that speaker's position; the latest ballot
tally adds half a vote per ballot (it is anonymous and may be stale). A participant starts
from its own last public position (or its preference) and may move to the group's leading
position: more readily with high conformity, low stubbornness and late rounds, and more
readily still when only the amount differs.

The move is drawn once per agent and round (not per call), so the private reasoning, the
statement and the ballot of one round tell a consistent story.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from maai.canonical import FrozenJsonList
from maai.domain.frohlich.simulated.facts import Item, as_int, history, progress
from maai.domain.frohlich.simulated.persona import Persona, unit
from maai.domain.frohlich.simulated.reading import Stance, amount_in, mentions, stance_in
from maai.domain.frohlich.types import Principle

K = TypeVar("K", Principle, Stance)
_TALLY_WEIGHT = 0.5
_COUNT = (
    re.compile(r"\b(\d{1,3})\s*(?:votes?|ballots?|votos?)\b|(\d{1,3})\s*票", re.I),
    re.compile(r"\b(?:votes?|ballots?)\W{0,3}(\d{1,3})\b(?![,\d])", re.I),
    re.compile(r"(?:[:=×：]|\bx)\s*(\d{1,3})\b(?![,\d])"),
)


@dataclass(frozen=True)
class GroupView:
    me: str
    positions: dict[str, Stance] = field(default_factory=dict)  # oldest speaker first
    tally: dict[Stance, int] = field(default_factory=dict)

    def others(self) -> dict[str, Stance]:
        return {name: s for name, s in self.positions.items() if name != self.me}

    def support(self) -> dict[Stance, float]:
        out: dict[Stance, float] = {}
        for stance in self.positions.values():
            out[stance] = out.get(stance, 0.0) + 1.0
        for stance, count in self.tally.items():
            out[stance] = out.get(stance, 0.0) + _TALLY_WEIGHT * count
        return out

    def share(self, principle: Principle) -> float:
        support = self.support()
        total = sum(support.values())
        mine = sum(v for s, v in support.items() if s.principle is principle)
        return mine / total if total else 0.0

    def agreement(self, stance: Stance) -> float:
        """How much the others agree with ``stance``: 1 per exact match, 0.5 per same
        principle with another amount, over the number of others heard."""
        others = list(self.others().values())
        if not others:
            return 0.0
        score = sum(
            1.0 if s == stance else 0.5 if s.principle is stance.principle else 0.0 for s in others
        )
        return score / len(others)

    def leader(self, own: Stance) -> Stance | None:
        support = self.support()
        if not support:
            return None
        by_principle: dict[Principle, float] = {}
        for stance, value in support.items():
            by_principle[stance.principle] = by_principle.get(stance.principle, 0.0) + value
        principle: Principle = self._tie_break(by_principle, own.principle, _principle_of)
        amounts = {s: v for s, v in support.items() if s.principle is principle}
        return self._tie_break(amounts, own, _itself)

    def _tie_break(self, scores: Mapping[K, float], own: K, key: Callable[[Stance], K]) -> K:
        # Ties go to one's own position, then to the most recent speaker's: a cascade that
        # lets a split group converge instead of cycling.
        best = max(scores.values())
        tied = [k for k, v in scores.items() if v == best]
        if own in tied:
            return own
        for stance in reversed(list(self.positions.values())):
            if key(stance) in tied:
                return key(stance)
        return min(tied, key=str)  # only a tally names it: any fixed choice will do


def _principle_of(stance: Stance) -> Principle:
    return stance.principle


def _itself(stance: Stance) -> Stance:
    return stance


def read_group(me: str, items: list[Item]) -> GroupView:
    latest: dict[str, Stance] = {}  # newest first while reading backwards
    tally: dict[Stance, int] | None = None
    for item in reversed(items):
        if item.kind == "statement" and item.speaker and item.speaker not in latest:
            stance = stance_in(item.text)
            if stance is not None and stance.complete:
                latest[item.speaker] = stance
        elif item.kind == "tally" and tally is None:
            tally = read_tally(item.text)
    positions = dict(reversed(latest.items()))
    return GroupView(me=me, positions=positions, tally=tally or {})


def read_tally(text: str) -> dict[Stance, int]:
    """``(c) $13,000: 3 votes; (a): 2 votes`` and similar announcements, leniently."""
    spots = mentions(text)
    out: dict[Stance, int] = {}
    for i, (_, end, principle) in enumerate(spots):
        segment = text[end : spots[i + 1][0] if i + 1 < len(spots) else len(text)]
        amount = amount_in(segment) if principle.needs_amount else None
        if principle.needs_amount and amount is None:
            continue
        count = 1
        for pattern in _COUNT:
            m = pattern.search(segment)
            if m:
                count = int(next(g for g in m.groups() if g))
                break
        stance = Stance(principle, amount)
        out[stance] = out.get(stance, 0) + count
    return out


def preferred(persona: Persona) -> Stance:
    return Stance(persona.principle, persona.amount_for(persona.principle))


@dataclass(frozen=True)
class Position:
    stance: Stance
    switched: bool
    view: GroupView


# Every request made from one state carries the same history object, never changed (a
# maai.canonical.FrozenJsonList): the group is read from it once for all the agents polled at
# once, not once per agent (reading it costs the whole history). What is read does not depend
# on the reader; each view gets its own copies.
_read_views: dict[int, tuple[object, GroupView]] = {}
_READ_VIEWS_LIMIT = 64


def group_view(me: str, ctx: Mapping[str, Any]) -> GroupView:
    """``read_group(me, history(ctx))``, the history read once per history object."""
    raw = ctx.get("history")
    if not isinstance(raw, FrozenJsonList):
        return read_group(me, history(ctx))
    known = _read_views.get(id(raw))
    if known is None or known[0] is not raw:
        if len(_read_views) >= _READ_VIEWS_LIMIT:
            _read_views.clear()
        known = (raw, read_group("", history(ctx)))
        _read_views[id(raw)] = known
    view = known[1]
    return GroupView(me=me, positions=dict(view.positions), tally=dict(view.tally))


def current_position(persona: Persona, seed: int, ctx: Mapping[str, Any]) -> Position:
    view = group_view(persona.name, ctx)
    target = _steering_to(ctx)
    if target is not None:
        # A manipulator (the request tells it its target) holds the target and never yields.
        said = view.positions.get(persona.name)
        if said is not None and said.principle is target:
            return Position(said, False, view)
        return Position(Stance(target, persona.amount_for(target)), said is not None, view)
    own = view.positions.get(persona.name, preferred(persona))
    lead = view.leader(own)
    if lead is None or lead == own:
        return Position(own, False, view)
    pull = persona.conformity * (1 - 0.6 * persona.stubbornness) * (0.3 + 0.7 * progress(ctx))
    if lead.principle is own.principle:
        chance = min(1.0, 0.15 + 1.5 * pull)  # conceding an amount is cheap
    else:
        chance = pull * min(1.0, 1.5 * view.share(lead.principle))
    draw = unit(seed, persona.name, "phase2/stance", as_int(ctx.get("round"), 0))
    if draw < chance:
        return Position(lead, True, view)
    return Position(own, False, view)


def _steering_to(ctx: Mapping[str, Any]) -> Principle | None:
    value = ctx.get("steer_to")
    try:
        return Principle(value) if isinstance(value, str) else None
    except ValueError:
        return None
