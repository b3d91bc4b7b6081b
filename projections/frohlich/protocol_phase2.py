"""Rules of the Phase-2 discussion, vote and payment (docs/frohlich.md §4, §6)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from maai.domain.frohlich import parsing
from maai.domain.frohlich.events import (
    BallotResolved,
    DiscussionEnded,
    DistributionsDrawn,
    GroupDistributionChosen,
    PayoffAwarded,
    PollResolved,
    ReasoningRecorded,
    SpeakingOrderDrawn,
    StatementMade,
)
from maai.domain.frohlich.types import PrincipleChoice
from maai.projections.frohlich import reference
from maai.projections.frohlich.protocol_base import Audit, Violation, rule


def _orders(audit: Audit) -> dict[int, list[str]]:
    return {o.round: o.order for _, o in audit.history.each(SpeakingOrderDrawn)}


@rule(
    "speaking_order",
    "§4",
    "each round's speaking order is a permutation of the agents, "
    "rounds run 1, 2, ... and whoever spoke last does not speak first next round",
)
def speaking_order(audit: Audit) -> Iterator[Violation]:
    last: str | None = None
    for count, (entry, drawn) in enumerate(audit.history.of(SpeakingOrderDrawn), 1):
        where = f"round {drawn.round}"
        if drawn.round != count:
            yield Violation("speaking_order", entry.seq, f"{where} drawn where {count} was due")
        if sorted(drawn.order) != sorted(audit.names):
            yield Violation(
                "speaking_order",
                entry.seq,
                f"{where}: {drawn.order} is not a permutation of the agents",
            )
        if drawn.previous_last != last:
            yield Violation(
                "speaking_order",
                entry.seq,
                f"{where}: previous_last {drawn.previous_last}, last speaker {last}",
            )
        if last is not None and drawn.order[:1] == [last]:
            yield Violation(
                "speaking_order", entry.seq, f"{where}: {last} spoke last and now first"
            )
        last = drawn.order[-1] if drawn.order else None


@rule(
    "turns_follow_order",
    "§4",
    "statements follow the round's speaking order, one per "
    "agent per round, turns numbered 1, 2, ...",
)
def turns_follow_order(audit: Audit) -> Iterator[Violation]:
    orders: dict[int, list[str]] = {}
    spoken: dict[int, int] = defaultdict(int)
    for entry, event in audit.history.each(SpeakingOrderDrawn, StatementMade):
        if isinstance(event, SpeakingOrderDrawn):
            orders[event.round] = event.order
        if not isinstance(event, StatementMade):
            continue
        order = orders.get(event.round)
        spoken[event.round] += 1
        due = spoken[event.round]
        if order is None:
            yield Violation(
                "turns_follow_order",
                entry.seq,
                f"round {event.round}: statement before the order was drawn",
            )
        elif event.turn != due or order[due - 1 : due] != [event.agent]:
            owner = order[due - 1] if due <= len(order) else "nobody"
            yield Violation(
                "turns_follow_order",
                entry.seq,
                f"round {event.round}: {event.agent} spoke as turn {event.turn}; "
                f"turn {due} is {owner}'s",
            )


@rule(
    "reasoning_as_configured",
    "§4",
    "an agent with reasoning on reasons privately before "
    "each statement; an agent with reasoning off never does",
)
def reasoning_as_configured(audit: Audit) -> Iterator[Violation]:
    reasoned: set[tuple[int, str]] = set()
    for entry, event in audit.history.each(ReasoningRecorded, StatementMade):
        if isinstance(event, ReasoningRecorded):
            if event.agent not in audit.names or not audit.config.agent(event.agent).reasoning:
                yield Violation(
                    "reasoning_as_configured",
                    entry.seq,
                    f"round {event.round}: {event.agent} reasoned with reasoning off",
                )
            reasoned.add((event.round, event.agent))
        elif isinstance(event, StatementMade) and event.agent in audit.names:
            wanted = audit.config.agent(event.agent).reasoning
            if wanted and (event.round, event.agent) not in reasoned:
                yield Violation(
                    "reasoning_as_configured",
                    entry.seq,
                    f"round {event.round}: {event.agent} spoke without reasoning",
                )


@rule(
    "proposal_detected",
    "§4",
    "a statement proposes a vote exactly when it carries the "
    "proposal line (deterministic detection)",
)
def proposal_detected(audit: Audit) -> Iterator[Violation]:
    for entry, said in audit.history.each(StatementMade):
        if said.proposes_vote != parsing.parse_vote_proposal(said.text):
            yield Violation(
                "proposal_detected",
                entry.seq,
                f"round {said.round}: {said.agent}'s proposes_vote is "
                f"{said.proposes_vote}, the text says otherwise",
            )


@rule(
    "poll_rule",
    "§4",
    "a poll follows a vote proposal at that turn; its answers are the "
    "agents' accepted answers (missing: none) and it passes only when all are yes",
)
def poll_rule(audit: Audit) -> Iterator[Violation]:
    proposals = {
        (s.round, s.turn): s.agent for _, s in audit.history.each(StatementMade) if s.proposes_vote
    }
    for entry, poll in audit.history.each(PollResolved):
        where = f"round {poll.round} turn {poll.turn}"
        if proposals.get((poll.round, poll.turn)) != poll.proposer:
            yield Violation(
                "poll_rule", entry.seq, f"{where}: poll without {poll.proposer}'s proposal"
            )
        expected: dict[str, bool | None] = {}
        for name in audit.names:
            found = audit.accepted.get(f"p2/r{poll.round}/t{poll.turn}/poll/{name}")
            expected[name] = found[1].value if found else None
        if poll.answers != expected:
            yield Violation(
                "poll_rule",
                entry.seq,
                f"{where}: answers {poll.answers}, accepted answers {expected}",
            )
        if poll.passed != all(a is True for a in poll.answers.values()):
            yield Violation(
                "poll_rule", entry.seq, f"{where}: passed={poll.passed} with answers {poll.answers}"
            )


Key = tuple[str, int | None]
"""A ballot's principle and amount (0 for (a)/(b)), as reference.tally and .consensus take it."""


def _key(choice: PrincipleChoice | None) -> Key | None:
    # Two ballots are the same when principle and amount agree ((a)/(b) carry no amount).
    return None if choice is None else (choice.principle.value, choice.amount or 0)


def _reference_tally(keys: list[Key | None]) -> list[tuple[Key | None, int]]:
    """The valid ballots counted per principle and amount in that order, the invalid last."""
    counts: dict[Key, int] = {}
    for key in keys:
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
    lines = sorted(counts.items(), key=lambda kv: kv[0])
    invalid = keys.count(None)
    return [*lines, (None, invalid)] if invalid else [*lines]


@rule(
    "ballot_rule",
    "§4",
    "a ballot is held only after a passed poll; only valid ballots "
    "count; the tally, consensus and agreement are recomputed from the accepted ballots",
)
def ballot_rule(audit: Audit) -> Iterator[Violation]:
    polls = {(p.round, p.turn): p.passed for _, p in audit.history.each(PollResolved)}
    for entry, ballot in audit.history.each(BallotResolved):
        where = f"round {ballot.round} turn {ballot.turn}"
        if not polls.get((ballot.round, ballot.turn), False):
            yield Violation("ballot_rule", entry.seq, f"{where}: ballot without a passed poll")
        cast = [
            audit.choice_of(f"p2/r{ballot.round}/t{ballot.turn}/ballot/{name}")
            for name in audit.names
        ]
        keys = [_key(c) for c in cast]
        tally = _reference_tally(keys)
        if [(_key(line.choice), line.count) for line in ballot.tally] != tally:
            yield Violation(
                "ballot_rule",
                entry.seq,
                f"{where}: tally differs from the accepted ballots {tally}",
            )
        consensus = reference.consensus(keys)
        agreement = keys[0] if consensus else None
        if ballot.consensus != consensus or _key(ballot.agreement) != agreement:
            yield Violation(
                "ballot_rule",
                entry.seq,
                f"{where}: consensus={ballot.consensus}, the ballots give "
                f"{consensus} ({agreement})",
            )


@rule(
    "consensus_ends_discussion",
    "§4",
    "consensus ends the discussion on that agreement: no "
    "statement, poll or ballot follows; without consensus there is no agreement",
)
def consensus_ends_discussion(audit: Audit) -> Iterator[Violation]:
    agreed: BallotResolved | None = None
    ends = (StatementMade, PollResolved, BallotResolved, DiscussionEnded)
    for entry, event in audit.history.each(*ends):
        if agreed is not None and isinstance(event, StatementMade | PollResolved | BallotResolved):
            yield Violation(
                "consensus_ends_discussion",
                entry.seq,
                f"{event.TYPE} after the consensus of round {agreed.round}",
            )
        if isinstance(event, BallotResolved) and event.consensus:
            agreed = agreed or event
        if isinstance(event, DiscussionEnded):
            expected = agreed.agreement if agreed else None
            if _key(event.agreement) != _key(expected):
                yield Violation(
                    "consensus_ends_discussion",
                    entry.seq,
                    f"ended with agreement {event.agreement}, ballots gave {expected}",
                )
            rounds = sorted(_orders(audit))
            if event.rounds_used != (rounds[-1] if rounds else 0):
                yield Violation(
                    "consensus_ends_discussion",
                    entry.seq,
                    f"rounds_used {event.rounds_used}, rounds held {rounds}",
                )


@rule(
    "discussion_rounds",
    "§4",
    "the discussion never exceeds the configured rounds, and "
    "ends without agreement only after all of them",
)
def discussion_rounds(audit: Audit) -> Iterator[Violation]:
    limit = audit.config.phase2_rounds
    for entry, drawn in audit.history.each(SpeakingOrderDrawn):
        if drawn.round > limit:
            yield Violation("discussion_rounds", entry.seq, f"round {drawn.round} > {limit}")
    for entry, ended in audit.history.each(DiscussionEnded):
        if ended.agreement is None and ended.rounds_used != limit:
            yield Violation(
                "discussion_rounds",
                entry.seq,
                f"ended without agreement after {ended.rounds_used} of {limit} rounds",
            )


@rule(
    "phase2_after_discussion",
    "§4 2.2, §6",
    "the Phase-2 payment table, the group's "
    "distribution and the Phase-2 payments come only after the discussion ended",
)
def phase2_after_discussion(audit: Audit) -> Iterator[Violation]:
    ended = False
    kinds = (DiscussionEnded, DistributionsDrawn, GroupDistributionChosen, PayoffAwarded)
    for entry, event in audit.history.each(*kinds):
        if isinstance(event, DiscussionEnded):
            ended = True
        early = (
            (isinstance(event, DistributionsDrawn) and event.scope == "phase2")
            or isinstance(event, GroupDistributionChosen)
            or (isinstance(event, PayoffAwarded) and event.scope == "phase2")
        )
        if early and not ended:
            yield Violation(
                "phase2_after_discussion", entry.seq, f"{event.TYPE} before discussion.ended"
            )


@rule(
    "group_payment",
    "§4 2.2",
    "the group's distribution is picked by the agreement or "
    "drawn uniformly without one; every agent is paid once by it",
)
def group_payment(audit: Audit) -> Iterator[Violation]:
    chosen = audit.history.of(GroupDistributionChosen)
    ended = audit.history.of(DiscussionEnded)
    table = audit.phase2_table
    for entry, pick in chosen:
        agreement = ended[0][1].agreement if ended else None
        if _key(pick.agreement) != _key(agreement) or pick.drawn != (agreement is None):
            yield Violation(
                "group_payment",
                entry.seq,
                f"chosen with agreement {pick.agreement} (drawn={pick.drawn}), "
                f"discussion ended with {agreement}",
            )
        if table is not None and agreement is not None:
            by_name = {c.value: p for c, p in audit.probs.items()}
            picked = reference.pick(
                agreement.principle.value,
                agreement.amount,
                [list(d) for d in table[1].distributions],
                [by_name[name] for name in reference.CLASSES],
            )
            if picked != pick.distribution:
                yield Violation(
                    "group_payment",
                    entry.seq,
                    f"{agreement.describe()} picks Distribution {picked}, not {pick.distribution}",
                )
        if table is not None and not 1 <= pick.distribution <= len(table[1].distributions):
            yield Violation(
                "group_payment", entry.seq, f"distribution {pick.distribution} is not in the table"
            )
    paid: dict[str, int] = defaultdict(int)
    for entry, payoff in audit.history.each(PayoffAwarded):
        if payoff.scope != "phase2":
            continue
        paid[payoff.agent] += 1
        group = chosen[0][1] if chosen else None
        if group is None or (payoff.distribution, _key(payoff.choice)) != (
            group.distribution,
            _key(group.agreement),
        ):
            yield Violation(
                "group_payment",
                entry.seq,
                f"{payoff.agent} paid by Distribution {payoff.distribution}, not the group's",
            )
        if paid[payoff.agent] > 1:
            yield Violation("group_payment", entry.seq, f"{payoff.agent} paid twice in Phase 2")
    if audit.history.completed:
        for name in audit.names:
            if paid[name] != 1:
                yield Violation("group_payment", None, f"{name}: {paid[name]} Phase-2 payments")
