"""The protocol audit's rule on plans (docs/world.md §4): each agent's plan queue replayed
from its recorded plan changes with this module's own code (nothing shared with
``domain/world/plans.py`` or ``state.py``), and every change checked against it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from maai.domain.world.config import WorldConfig
from maai.domain.world.events import PlanChanged, TickClosed
from maai.projections.audit import Violation
from maai.projections.history import History

RULE = "plans"


def _number(plan: PlanChanged) -> int:
    return plan.index if plan.plan is None else plan.plan


def _same_plan(change: PlanChanged, plan: PlanChanged) -> bool:
    """Whether ``change`` is about ``plan`` (by its number where recorded, and its words)."""
    fields = ("location", "description", "stop_condition", "max_ticks")
    same_words = all(getattr(change, f) == getattr(plan, f) for f in fields)
    return same_words and (change.plan is None or change.plan == _number(plan))


def _spent(plan: PlanChanged, tick: int) -> bool:
    # The queue's first place holds the change that made the plan current (set, postponed or
    # promoted): it lasts max_ticks ticks from that change's tick, that tick included.
    return tick - plan.tick + 1 >= plan.max_ticks


class _Queues:
    def __init__(self, config: WorldConfig) -> None:
        self.max_plans = config.max_plans or 1  # before plan lists: one plan per answer
        self.initial = {a.name for a in config.world.agents if a.plan is not None}
        # Before plan lists (runs recorded then, max_plans null) changes have no place and
        # no number, and there are no promotions: the queue is checked as it was then (a set
        # plan last, a postponed one first), promotions are not looked for.
        self.queued = config.plan_lists
        self.queues: dict[str, list[PlanChanged]] = {}
        self.previous: dict[str, PlanChanged] = {}
        self.due: dict[str, PlanChanged] = {}  # agent -> the plan to promote next
        self.added: Counter[tuple[str, int]] = Counter()

    def closed(self, tick: int) -> Iterator[str]:
        """At a tick's close: no promotion left undone, no plan past its max ticks."""
        for agent, plan in sorted(self.due.items()):
            yield f"{agent}: {plan.description!r} never promoted"
        self.due.clear()
        for agent, queue in sorted(self.queues.items()):
            if queue and _spent(queue[0], tick):
                yield f"{agent}: {queue[0].description!r} outlived its {queue[0].max_ticks} ticks"

    def change(self, e: PlanChanged) -> Iterator[str]:
        who, queue = e.agent, self.queues.setdefault(e.agent, [])
        where = f"{who}, plan change {e.index}"
        last = self.previous.get(who)
        self.previous[who] = e
        if e.index != (0 if last is None else last.index + 1):
            yield f"{where}: out of sequence"
        pending = self.due.pop(who, None)
        if pending is not None and (e.status != "promoted" or not _same_plan(e, pending)):
            yield f"{where}: {pending.description!r} was next but not promoted"
        if e.status in ("set", "postponed"):
            yield from self._added(e, queue, last, where)
        elif e.status == "promoted":
            if pending is None:
                yield f"{where}: promoted after no plan ended"
            if queue:
                queue[0] = e
        elif not queue:
            yield f"{where}: {e.status}, with no current plan"
        else:
            if not _same_plan(e, queue[0]):
                yield f"{where}: {e.status} {e.description!r}, not the current plan"
            if e.status == "expired" and not _spent(queue[0], e.tick):
                yield f"{where}: expired before its max ticks"
            queue.pop(0)
            if queue and self.queued:
                self.due[who] = queue[0]

    def _added(
        self, e: PlanChanged, queue: list[PlanChanged], last: PlanChanged | None, where: str
    ) -> Iterator[str]:
        if e.status == "set":
            expected = len(queue)
        elif last is not None and last.status == "postponed" and last.tick == e.tick:
            expected = (last.place or 0) + 1  # an answer's next plan, after its first
        else:
            expected = 0
        if self.queued and (e.place != expected or e.plan != e.index):
            yield f"{where}: placed {e.place} as plan {e.plan}, not {expected} as {e.index}"
        if e.status == "postponed" and not queue:
            yield f"{where}: postponed with no current plan"
        if not (e.index == 0 and e.agent in self.initial):
            self.added[e.agent, e.tick] += 1
            if self.added[e.agent, e.tick] == self.max_plans + 1:
                yield f"{where}: more than {self.max_plans} plans in tick {e.tick}"
        place = expected if e.place is None else e.place
        queue.insert(min(place, len(queue)), e)


def plan_queue_violations(history: History, config: WorldConfig) -> Iterator[Violation]:
    queues = _Queues(config)
    for entry, e in history.each(PlanChanged, TickClosed):
        found = queues.closed(e.tick) if isinstance(e, TickClosed) else queues.change(e)
        for detail in found:
            yield Violation(RULE, entry.seq, detail)
