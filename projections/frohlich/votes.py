"""The vote audit: every vote proposal, poll answer and ballot with the raw text it was read
from, who read it (the deterministic parser or the utility agent), what was read, whether it
was valid and why not; then each poll's and ballot's result and the discussion's outcome.
Every row cites its event's seq and hash."""

from __future__ import annotations

from typing import Any

from maai.domain.events import Event
from maai.domain.frohlich.events import (
    AnswerAccepted,
    AnswerMissing,
    AnswerRejected,
    AnswerUndecided,
    BallotResolved,
    DiscussionEnded,
    PollResolved,
    StatementMade,
)
from maai.projections.frohlich.calls import site_of
from maai.projections.frohlich.outcome import choice_json
from maai.projections.history import History

Row = dict[str, Any]

_PARSES = (AnswerAccepted, AnswerRejected, AnswerUndecided, AnswerMissing)


def vote_rows(history: History) -> list[Row]:
    rows: list[Row] = []
    # The events _row reads: no other gives a row.
    read = (StatementMade, *_PARSES, PollResolved, BallotResolved, DiscussionEnded)
    for entry, event in history.each(*read):
        row = _row(event)
        if row is not None:
            rows.append({"seq": entry.seq, "hash": entry.hash, **_blank(), **row})
    return rows


def vote_audit(history: History) -> dict[str, Any]:
    ended = history.of(DiscussionEnded)
    outcome = None
    if ended:
        event = ended[-1][1]
        outcome = {"agreement": choice_json(event.agreement), "rounds_used": event.rounds_used}
    return {"run_id": history.run_id, "rows": vote_rows(history), "outcome": outcome}


def _blank() -> Row:
    return {
        "round": None,
        "turn": None,
        "kind": None,
        "agent": None,
        "attempt": None,
        "source": None,
        "via": None,
        "raw_text": None,
        "value": None,
        "valid": None,
        "reason": None,
        "counted": None,
        "tally": None,
        "consensus": None,
        "agreement": None,
    }


def _row(event: Event) -> Row | None:
    if isinstance(event, StatementMade):
        if not event.proposes_vote:
            return None
        return {
            "round": event.round,
            "turn": event.turn,
            "kind": "proposal",
            "agent": event.agent,
            # The proposal line is found by a fixed rule, never by a model (docs/frohlich.md §4).
            "source": "parser",
            "raw_text": event.text,
            "value": True,
            "valid": True,
        }
    if isinstance(event, _PARSES) and event.kind in ("poll", "ballot"):
        return _parse_row(event)
    if isinstance(event, PollResolved):
        return {
            "round": event.round,
            "turn": event.turn,
            "kind": "poll_result",
            "agent": event.proposer,
            "value": dict(event.answers),
            "valid": event.passed,
        }
    if isinstance(event, BallotResolved):
        return {
            "round": event.round,
            "turn": event.turn,
            "kind": "ballot_result",
            "tally": [
                {"choice": choice_json(line.choice), "count": line.count} for line in event.tally
            ],
            "consensus": event.consensus,
            "agreement": choice_json(event.agreement),
        }
    if isinstance(event, DiscussionEnded):
        return {
            "round": event.rounds_used,
            "kind": "outcome",
            "agreement": choice_json(event.agreement),
            "consensus": event.agreement is not None,
        }
    return None


def _parse_row(event: AnswerAccepted | AnswerRejected | AnswerUndecided | AnswerMissing) -> Row:
    site = site_of(f"{event.slot}/1")
    row: Row = {"round": site.round, "turn": site.turn, "agent": event.agent}
    if isinstance(event, AnswerMissing):
        return {
            **row,
            "kind": f"{event.kind}_missing",
            "attempt": event.attempts,
            "valid": False,
            "reason": event.last_reason,
            "counted": _counted(event.kind, False),
        }
    row.update(
        kind=event.kind,
        attempt=event.attempt,
        source=event.source,
        via=event.via,
        raw_text=event.raw_text,
    )
    if isinstance(event, AnswerAccepted):
        # Only the accepted ballot of a slot is counted; rejected ones are asked again.
        return {**row, "value": event.value, "valid": True, "counted": _counted(event.kind, True)}
    if isinstance(event, AnswerRejected):
        return {
            **row,
            "valid": False,
            "reason": event.reason,
            "counted": _counted(event.kind, False),
        }
    return {**row, "valid": None, "reason": f"undecided: {event.reason}"}


def _counted(kind: str, counted: bool) -> bool | None:
    """Whether a ballot row enters the tally; polls are not tallied."""
    return counted if kind == "ballot" else None


def _choice_text(value: Any) -> str:
    if not isinstance(value, dict):
        return "invalid or missing"
    amount = value.get("amount")
    return f"({value.get('principle')})" + (f" ${amount:,}" if amount else "")


def _yes_no(value: Any) -> str:
    return {True: "yes", False: "no"}.get(value, "no answer")


def describe_value(row: Row) -> str:
    """A row's value in a few words, for tables read by people."""
    kind = row["kind"]
    if kind == "proposal":
        return "proposes a vote"
    if kind.endswith("_missing"):
        return "missing"
    if kind == "poll_result":
        answers = ", ".join(f"{name} {_yes_no(a)}" for name, a in row["value"].items())
        return f"{answers} → {'passed' if row['valid'] else 'failed'}"
    if kind == "ballot_result":
        tally = "; ".join(f"{_choice_text(t['choice'])}: {t['count']}" for t in row["tally"])
        return f"{tally} → {'consensus' if row['consensus'] else 'no consensus'}"
    if kind == "outcome":
        agreement = row["agreement"]
        return "no agreement" if agreement is None else f"agreement on {_choice_text(agreement)}"
    if row["valid"] is not True:
        return "rejected" if row["valid"] is False else "undecided"
    return _yes_no(row["value"]) if kind == "poll" else _choice_text(row["value"])
