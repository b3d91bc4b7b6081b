"""Answers to Phase-2 requests: private reasoning, public statements, polls and ballots.

The proposal decision, like the position, is drawn once per agent and round, so the
private reasoning can announce what the statement then does.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from maai.domain.frohlich.simulated import render
from maai.domain.frohlich.simulated.facts import (
    Item,
    as_int,
    as_str,
    has_feedback,
    history,
    progress,
)
from maai.domain.frohlich.simulated.group import GroupView, Position, current_position
from maai.domain.frohlich.simulated.persona import Persona, unit
from maai.domain.frohlich.simulated.phase1 import reasons, retry_prefix, slips
from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.simulated.reading import Stance, stance_in


@dataclass(frozen=True)
class Turn:
    position: Position
    propose: bool


def plan_turn(persona: Persona, seed: int, ctx: Mapping[str, Any]) -> Turn:
    position = current_position(persona, seed, ctx)
    agree = position.view.agreement(position.stance)
    # Grows with the round and with how far the others already share this position.
    chance = 0.02 + 0.6 * progress(ctx) * (0.15 + 0.85 * agree)
    draw = unit(seed, persona.name, "phase2/propose", as_int(ctx.get("round"), 0))
    return Turn(position, draw < chance)


def _camps(view: GroupView) -> dict[Stance, list[str]]:
    camps: dict[Stance, list[str]] = {}
    for name, stance in view.others().items():
        camps.setdefault(stance, []).append(name)
    return camps


def reasoning(
    ph: Phrases, persona: Persona, seed: int, ctx: Mapping[str, Any], rng: random.Random
) -> str:
    turn = plan_turn(persona, seed, ctx)
    stance = turn.position.stance
    opening = render.pick(rng, ph.reasoning_open).format(
        round=as_int(ctx.get("round"), 1), rounds=as_int(ctx.get("rounds"), 10)
    )
    camps = sorted(_camps(turn.position.view).items(), key=lambda kv: -len(kv[1]))[:3]
    seen = [
        ph.reasoning_camp.format(
            names=render.join_names(ph, names), position=render.ballot(ph, camp)
        )
        for camp, names in camps
    ] or [render.pick(rng, ph.reasoning_none)]
    if turn.position.switched:
        mine = render.pick(rng, ph.reasoning_switch).format(position=render.ballot(ph, stance))
    else:
        mine = render.pick(rng, ph.reasoning_keep).format(
            position=render.ballot(ph, stance), reason=reasons(ph, persona, stance.principle, rng)
        )
    outlook = render.pick(rng, ph.reasoning_near if turn.propose else ph.reasoning_far)
    return render.paragraph(opening, *seen, mine, outlook)


def _recent_statements(items: list[Item], me: str, limit: int) -> list[Item]:
    out: list[Item] = []
    for item in reversed(items):
        other = item.kind == "statement" and item.speaker not in (None, me)
        if other and all(o.speaker != item.speaker for o in out):
            out.append(item)
        if len(out) == limit:
            break
    return out


def statement(
    ph: Phrases, persona: Persona, seed: int, ctx: Mapping[str, Any], rng: random.Random
) -> str:
    turn = plan_turn(persona, seed, ctx)
    stance = turn.position.stance
    items = history(ctx)
    options = ph.stance_switch if turn.position.switched else ph.stance_keep
    parts = [render.pick(rng, options).format(position=render.position(ph, stance))]
    parts.append(reasons(ph, persona, stance.principle, rng))
    if items and items[-1].kind == "tally":
        parts.append(render.pick(rng, ph.reply_tally))
    for item in _recent_statements(items, persona.name, 1 + (persona.verbosity > 0.5)):
        theirs = stance_in(item.text)
        if theirs is None:
            continue
        if theirs.principle is stance.principle:
            parts.append(render.pick(rng, ph.reply_agree).format(name=item.speaker))
        else:
            parts.append(
                render.pick(rng, ph.reply_disagree).format(
                    name=item.speaker,
                    letter=theirs.principle.value,
                    short=ph.short[theirs.principle],
                    doubt=render.pick(rng, ph.doubts[theirs.principle]),
                )
            )
    near = turn.position.view.agreement(stance) >= 0.5
    if rng.random() < 0.3 + 0.7 * persona.verbosity:
        parts.append(render.pick(rng, ph.close_near if near else ph.close_far))
    text = render.paragraph(*parts)
    return f"{text}\n\n{ph.proposal_line}" if turn.propose else text


def poll(
    ph: Phrases, persona: Persona, seed: int, ctx: Mapping[str, Any], rng: random.Random
) -> str:
    # No apology before a retried answer here: parsers read a poll answer from its first word.
    if not has_feedback(ctx) and rng.random() < 0.5 * persona.error_rate:
        return render.pick(rng, ph.poll_unclear)
    if as_str(ctx.get("proposer")) == persona.name:
        chance = 0.97
    else:
        position = current_position(persona, seed, ctx)
        agree = position.view.agreement(position.stance)
        chance = (
            0.1
            + 0.45 * agree
            + 0.3 * progress(ctx)
            + 0.15 * persona.conformity
            - 0.1 * persona.stubbornness
        )
        chance = min(0.98, max(0.02, chance))
    answer = ph.poll_yes if rng.random() < chance else ph.poll_no
    return render.pick(rng, answer)


def ballot(
    ph: Phrases, persona: Persona, seed: int, ctx: Mapping[str, Any], rng: random.Random
) -> str:
    stance = current_position(persona, seed, ctx).stance
    prefix = retry_prefix(ph, ctx, rng)
    if stance.principle.needs_amount and slips(persona, ctx, rng):
        text = render.pick(rng, ph.ballot_missing_amount).format(
            letter=stance.principle.value,
            short=ph.short[stance.principle],
            nickname=ph.nicknames[stance.principle],
        )
        return render.paragraph(prefix, text)
    return render.paragraph(
        prefix, render.pick(rng, ph.ballot).format(ballot=render.ballot(ph, stance))
    )
