"""The world report's sections that follow the run tick by tick (docs/projections.md,
"Reports"): model calls per tick, the event log and each agent's plans.

A long run has hundreds of events: the log is one collapsed block per tick whose one-line
summary names what stands out (a round beginning, contributions, the outcome, the
announcement, refused or missing actions, flagged in red), and the plans one collapsed block
per agent, so the page stays short until a reader opens what they look for."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from maai.domain.answers import AnswerMissing, AnswerRejected
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OrderDrawn,
    OutcomeComputed,
    RoundStarted,
)
from maai.projections.charts import Series, grouped_bars, label_step
from maai.projections.history import History
from maai.projections.markup import (
    Markup,
    details,
    facts,
    figures,
    flag,
    inline,
    join,
    paragraph,
    table,
)
from maai.projections.report import Section
from maai.projections.world.table_rows import tick_of

Row = dict[str, Any]
PURPOSES = ("act", "importance", "extract")


def calls_section(call_rows: list[Row]) -> Section:
    """Model calls per tick, stacked by purpose (act, importance, the utility's extract)."""
    counts = Counter((r["tick"], r["purpose"]) for r in call_rows if r["tick"] is not None)
    ticks = sorted({tick for tick, _ in counts})
    purposes = [p for p in PURPOSES if any(p == q for _, q in counts)]
    purposes += sorted({q for _, q in counts} - set(purposes))
    totals = Counter(r["purpose"] for r in call_rows)
    per_tick = Counter(r["tick"] for r in call_rows if r["tick"] is not None)
    plot = grouped_bars(
        "calls-per-tick",
        "Model calls per tick, by purpose",
        [str(t) for t in ticks],
        [Series(p, [counts.get((t, p)) for t in ticks]) for p in purposes],
        x_label="tick",
        y_label="model calls",
        stacked=True,
        whole=True,
        label_every=label_step(len(ticks), len(str(ticks[-1])) if ticks else 1),
    )
    busiest = max(per_tick.items(), key=lambda item: (item[1], -item[0]), default=None)
    pairs: list[tuple[str, Any]] = [
        ("model calls", len(call_rows)),
        ("by purpose", ", ".join(f"{p} {totals[p]}" for p in purposes) or "none"),
        ("pending (no answer recorded)", sum(1 for r in call_rows if r["status"] == "pending")),
        ("most in one tick", f"{busiest[1]} (tick {busiest[0]})" if busiest else "none"),
    ]
    return Section("Model calls per tick", join([facts(pairs), figures(plot)]))


@dataclass(frozen=True)
class Note:
    """A fact of a tick besides the actions: a sentence in the tick's block and, when it
    stands out, a few words for the tick's one-line summary."""

    words: str
    headline: str = ""
    flagged: bool = False
    at_start: bool = False  # shown before the tick's actions (a round opens at its start)


def _notes_by_tick(history: History) -> dict[int, list[Note]]:
    """The game's facts and the answers sent back or missing, by the tick they belong to.
    The outcome has no tick of its own: it follows its round's last contribution."""
    notes: dict[int, list[Note]] = {}
    tick = 0
    for entry in history.entries:
        e = entry.event
        if isinstance(e, OrderDrawn | ActionResolved | ContributionRecorded):
            tick = e.tick
        note = _note(e)
        if note is None:
            continue
        at = tick
        if isinstance(e, RoundStarted | AnnouncementChecked):
            at = e.tick
        elif isinstance(e, AnswerRejected | AnswerMissing):
            asked = tick_of(e.slot)  # the tick whose call was answered
            at = tick if asked is None else asked
        notes.setdefault(at, []).append(note)
    return notes


def _note(e: object) -> Note | None:
    if isinstance(e, RoundStarted):
        order = ", ".join(e.order)
        words = f"Round {e.round} begins; turn order: {order}."
        return Note(words, f"round {e.round} begins", at_start=True)
    if isinstance(e, ContributionRecorded) and e.amount is None:
        words = f"{e.player}'s contribution in round {e.round} is missing (counts 0)."
        return Note(words, f"{e.player}'s contribution missing", flagged=True)
    if isinstance(e, OutcomeComputed):
        pays = ", ".join(f"{p} {v:.2f}" for p, v in e.payoffs.items())
        words = f"Outcome of round {e.round} (code): total {e.total}; payoffs {pays}."
        return Note(words, f"outcome of round {e.round}")
    if isinstance(e, AnnouncementChecked):
        if e.matches:
            words = f"The announcement of round {e.round} matches the computed outcome."
            return Note(words, f"announcement of round {e.round} matches")
        wrong = "; ".join(e.differences)
        words = f"The announcement of round {e.round} is WRONG: {wrong}."
        return Note(words, f"WRONG announcement of round {e.round}", flagged=True)
    if isinstance(e, AnswerRejected):
        return Note(f"{e.agent}'s {e.kind} answer was sent back: {e.reason}.")
    if isinstance(e, AnswerMissing):
        return Note(f"{e.agent}'s {e.kind} answer is missing: {e.last_reason}.", flagged=True)
    return None


def _summary(tick: int, clock: str, actions: list[Row], notes: list[Note]) -> Markup:
    """One line: the tick, its time, how many actions, then what stands out: who moved
    where, contributions, the game's facts, and in red refused or missing actions, a missing
    contribution, a wrong announcement."""

    def headlines(at_start: bool) -> list[str]:
        chosen = [n for n in notes if n.headline and n.at_start == at_start]
        return [flag(n.headline) if n.flagged else n.headline for n in chosen]

    count = f"{len(actions)} action" + ("" if len(actions) == 1 else "s")
    parts = [f"Tick {tick} · {clock} · {count}", *headlines(True)]
    applied = [a for a in actions if a["outcome"] == "applied"]
    parts += [f"{a['actor']} → {a['to']}" for a in applied if a["kind"] == "move"]
    parts += [a["description"] for a in applied if a["kind"] == "contribute"]
    parts += headlines(False)
    not_applied = Counter(a["outcome"] for a in actions if a["outcome"] != "applied")
    parts += [flag(f"{n} {outcome}") for outcome, n in sorted(not_applied.items())]
    return inline(parts, " · ")


def _note_line(note: Note) -> Markup:
    return paragraph(flag(note.words)) if note.flagged else paragraph(note.words, "note")


def event_log_section(history: History, rows: dict[str, list[Row]]) -> Section:
    """One collapsed block per tick: its actions in the drawn order (where, who, what, who
    witnessed it) and the game's facts of that tick."""
    config = history.config
    clock: Callable[[int], str] = (
        config.world.clock if isinstance(config, WorldConfig) else (lambda t: "")
    )
    by_tick: dict[int, list[Row]] = {}
    for row in rows["events"]:
        by_tick.setdefault(row["tick"], []).append(row)
    notes = _notes_by_tick(history)
    blocks = []
    for tick in sorted(set(by_tick) | set(notes)):
        actions = sorted(by_tick.get(tick, []), key=lambda r: r["position"])
        cells = [
            (
                a["position"] + 1,
                a["location"],
                a["actor"],
                a["description"] if a["outcome"] == "applied" else flag(a["description"]),
                a["witnesses"].replace(";", ", "),
            )
            for a in actions
        ]
        own = notes.get(tick, [])
        body = [_note_line(n) for n in own if n.at_start]
        body.append(table(["#", "location", "actor", "what happened", "witnesses"], cells))
        body += [_note_line(n) for n in own if not n.at_start]
        blocks.append(details(_summary(tick, clock(tick), actions, own), join(body)))
    if not blocks:
        return Section("Event log", paragraph("No tick has run yet.", "no-data"))
    game = isinstance(config, WorldConfig) and config.game is not None
    red = (
        "A refused or missing action, a missing contribution and a wrong announcement are"
        if game
        else "A refused or missing action is"
    )
    intro = paragraph(
        "Tick by tick, each agent's action in the order drawn for the tick; witnesses are the "
        f"agents present, computed when the action was applied (docs/world.md §3). {red} in "
        "red. Open a tick to see it.",
        "note",
    )
    return Section("Event log", join([intro, *blocks]))


def plans_section(plan_rows: list[Row], agents: list[str]) -> Section:
    """Each agent's plans over time: every plan set, postponed, cancelled, done, failed or
    expired, in order."""
    columns = ["tick", "status", "location", "plan", "stop condition", "max ticks"]
    blocks = []
    for agent in agents:
        own = [r for r in plan_rows if r["agent"] == agent]
        if not own:
            blocks.append(paragraph(f"{agent}: no plan.", "no-data"))
            continue
        statuses = Counter(r["status"] for r in own)
        counted = ", ".join(f"{status} {n}" for status, n in statuses.items())
        last = own[-1]
        summary = (
            f"{agent}: {len(own)} plan changes ({counted}); last: {last['status']} at tick "
            f"{last['tick']}, {last['description']}"
        )
        cells = [
            (
                r["tick"],
                r["status"],
                r["location"],
                r["description"],
                r["stop_condition"],
                r["max_ticks"],
            )
            for r in own
        ]
        blocks.append(details(summary, table(columns, cells)))
    return Section("Plans", join(blocks))
