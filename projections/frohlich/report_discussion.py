"""The discussion part of the Frohlich report: each round's statements, polls and secret
ballots in the order they happened, and a timeline of the votes (docs/frohlich.md §4-§5)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from maai.projections.charts import WIDTH, Mark, Span, timeline
from maai.projections.frohlich.table_rows import Row
from maai.projections.markup import Markup, figures, heading, join, paragraph, quote
from maai.projections.report import Section

LANES = ["statements", "polls", "ballots"]
PER_TURN = 0.32  # inches per speaking turn, so that neighbouring marks do not touch
MAX_WIDTH = 12.8  # inches, wider than the page: the browser scales the plot down to fit
LABELLED_STATEMENTS = 15
"""Up to this many statements, each gets its speaker's name under it on the timeline (more
would overlap; the name stays on hover)."""


def _grouped(rows: list[Row]) -> dict[tuple[int, int], list[Row]]:
    groups: dict[tuple[int, int], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row["round"], row["turn"])].append(row)
    return groups


def _ballot_choice(row: Row) -> str:
    if row["status"] != "accepted" or row.get("principle") is None:
        return "no valid ballot"
    amount = row.get("amount")
    return f"({row['principle']})" + (f" ${amount:,}" if amount else "")


def poll_words(rows: list[Row]) -> tuple[str, str]:
    """A poll in a short label and a sentence: who proposed it, the answers, the result."""
    yes = sum(1 for r in rows if r.get("answer") == "yes")
    passed = rows[0].get("passed")
    result = "passed" if passed else "failed" if passed is False else "unresolved"
    answers = ", ".join(f"{r['agent']} {r.get('answer') or 'no answer'}" for r in rows)
    return f"{yes}/{len(rows)} yes", f"Poll proposed by {rows[0]['proposer']}: {answers} → {result}"


def ballot_words(rows: list[Row]) -> tuple[str, str]:
    consensus = rows[0].get("consensus")
    votes = ", ".join(f"{r['agent']} {_ballot_choice(r)}" for r in rows)
    if consensus:
        return f"consensus {_ballot_choice(rows[0])}", f"Secret ballot: {votes} → consensus"
    return "no consensus", f"Secret ballot: {votes} → no consensus"


def discussion_section(rows: dict[str, list[Row]], agents: list[str]) -> Section:
    statements, polls, ballots = rows["statements"], rows["polls"], rows["ballots"]
    if not statements:
        return Section("Phase 2: the discussion", paragraph("No statement was made."))
    return Section(
        "Phase 2: the discussion",
        join(
            [figures(vote_timeline(statements, polls, ballots, len(agents) or 1))]
            + _rounds(statements, polls, ballots)
        ),
    )


def _rounds(statements: list[Row], polls: list[Row], ballots: list[Row]) -> list[str]:
    """Per round, its statements, polls and ballots in seq order."""
    items: dict[int, list[tuple[int, Markup]]] = defaultdict(list)
    for row in statements:
        note = "proposes a vote" if row["proposes_vote"] else ""
        items[row["round"]].append(
            (row["seq"], quote(f"{row['agent']} (turn {row['turn']})", row["text"], note))
        )
    for (round_, _), group in sorted(_grouped(polls).items()):
        _, sentence = poll_words(group)
        items[round_].append((min(r["seq"] for r in group), paragraph(sentence, "vote")))
    for (round_, _), group in sorted(_grouped(ballots).items()):
        _, sentence = ballot_words(group)
        items[round_].append((min(r["seq"] for r in group), paragraph(sentence, "vote")))
    parts: list[str] = []
    for round_ in sorted(items):
        parts.append(heading(3, f"Round {round_}"))
        parts.extend(markup for _, markup in sorted(items[round_], key=lambda item: item[0]))
    return parts


def vote_timeline(statements: list[Row], polls: list[Row], ballots: list[Row], turns: int) -> str:
    """Rounds along x (each round split into its speaking turns); statements, polls and
    ballots in lanes; the round of a consensus shaded."""

    def x(round_: int, turn: int) -> float:
        return round_ - 0.5 + (turn - 0.5) / turns

    label_statements = len(statements) <= LABELLED_STATEMENTS
    marks: list[Mark] = []
    for row in statements:
        proposes = row["proposes_vote"]
        detail = f"round {row['round']}, turn {row['turn']}: {row['agent']}" + (
            " proposes a vote" if proposes else ""
        )
        marks.append(
            Mark(
                x(row["round"], row["turn"]),
                "statements",
                row["agent"] if label_statements else "",
                detail,
                shape="triangle" if proposes else "circle",
                filled=proposes,
            )
        )
    for (round_, turn), group in sorted(_grouped(polls).items()):
        label, sentence = poll_words(group)
        passed = group[0].get("passed") is True
        marks.append(Mark(x(round_, turn), "polls", label, sentence, filled=passed))
    spans: list[Span] = []
    for (round_, turn), group in sorted(_grouped(ballots).items()):
        label, sentence = ballot_words(group)
        consensus = group[0].get("consensus") is True
        marks.append(
            Mark(x(round_, turn), "ballots", label, sentence, "square", highlight=consensus)
        )
        if consensus:
            spans.append(Span(round_ - 0.5, round_ + 0.5, f"consensus in round {round_}"))
    rounds = max(int(r["round"]) for r in [*statements, *polls, *ballots])
    ticks: list[tuple[float, Any]] = [(n, f"round {n}") for n in range(1, rounds + 1)]
    return timeline(
        "vote-timeline",
        "Votes in the discussion (▲ proposal, ● poll: filled passed, ■ secret ballot)",
        LANES,
        marks,
        x_label="discussion round (split into speaking turns)",
        x_ticks=ticks,
        x_range=(0.5, rounds + 0.5),
        spans=spans,
        width=min(MAX_WIDTH, max(WIDTH, 1.0 + PER_TURN * rounds * turns)),
    )
