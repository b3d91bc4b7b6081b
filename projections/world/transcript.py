"""The event log of a world run as text (docs/world.md §8): tick by tick, each event with
its location, actor, description and witnesses; plans, game rounds, contributions, the
computed outcome and the announcement's check in between.

It is Markdown: a heading per tick and one list item per event (the game's records and
the agents' sent-back answers nested one level), so that no two events run into one
paragraph when rendered; text that agents or worlds wrote is escaped."""

from __future__ import annotations

from maai.domain.answers import AnswerMissing, AnswerRejected
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import (
    ActionResolved,
    AnnouncementChecked,
    ContributionRecorded,
    OrderDrawn,
    OutcomeComputed,
    PlanChanged,
    RoundStarted,
    WorldEnded,
)
from maai.projections.history import History

# Characters that would make Markdown out of plain text: emphasis, code, links, raw HTML,
# headings, tables and the escape itself.
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|~"})


def _md(text: object) -> str:
    """``text`` as literal Markdown inline text: on one line, with its markup escaped."""
    return " ".join(str(text).split()).translate(_MARKDOWN)


def transcript(history: History) -> str:
    config = history.config
    lines = [f"# World run {_md(history.run_id)}"]
    if isinstance(config, WorldConfig):
        lines += ["", f"World: {_md(config.world.name)}; {len(config.names)} agents", ""]
    for entry in history.entries:
        lines.extend(_lines(entry.event, config))
    return "\n".join(lines) + "\n"


def _lines(e: object, config: object) -> list[str]:
    if isinstance(e, OrderDrawn):
        clock = config.world.clock(e.tick) if isinstance(config, WorldConfig) else ""
        order = _md(", ".join(e.order))
        return ["", f"## Tick {e.tick} ({_md(clock)}); order: {order}", ""]
    if isinstance(e, ActionResolved):
        mark = "" if e.outcome == "applied" else f" [{_md(e.outcome)}]"
        who = _md(", ".join(e.witnesses))
        # A bracketed name is literal text in Markdown: it is a link only with a definition.
        return [f"- [{_md(e.location)}] {_md(e.description)}{mark} (witnesses: {who})"]
    if isinstance(e, PlanChanged):
        return [_nested(_plan_line(e))]
    if isinstance(e, RoundStarted):
        return [_nested(f"round {e.round} begins; turn order: {', '.join(e.order)}")]
    if isinstance(e, ContributionRecorded):
        amount = "missing (counts 0)" if e.amount is None else str(e.amount)
        return [_nested(f"contribution of {e.player} in round {e.round}: {amount}")]
    if isinstance(e, OutcomeComputed):
        pays = ", ".join(f"{p} {v:.2f}" for p, v in e.payoffs.items())
        return [_nested(f"outcome of round {e.round} (code): total {e.total}, payoffs {pays}")]
    if isinstance(e, AnnouncementChecked):
        verdict = "matches" if e.matches else "WRONG: " + "; ".join(e.differences)
        return [_nested(f"announcement of round {e.round}: {verdict}")]
    if isinstance(e, AnswerRejected):
        return [_nested(f"{e.agent} ({e.address}) sent back: {e.reason}")]
    if isinstance(e, AnswerMissing):
        return [_nested(f"{e.agent} ({e.slot}) missing: {e.last_reason}")]
    if isinstance(e, WorldEnded):
        return ["", f"The world ended at tick {e.tick}: {_md(e.reason)}."]
    return []


def _nested(text: str) -> str:
    """A list item one level in: what followed from an action, or an answer sent back."""
    return f"  - {_md(text)}"


def _plan_line(e: PlanChanged) -> str:
    what = f"{e.description} in {e.location}"
    if e.status == "promoted":
        return f"plan promoted for {e.agent}, now current: {what}"
    queued = f" (queued, place {e.place})" if e.place else ""
    return f"plan {e.status} by {e.agent}{queued}: {what}"
