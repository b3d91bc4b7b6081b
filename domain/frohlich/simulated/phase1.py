"""Answers to Phase-1 requests (and the 2.3 ranking): rankings and per-round choices."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from maai.domain.frohlich.config import BASE_DISTRIBUTIONS
from maai.domain.frohlich.simulated import render
from maai.domain.frohlich.simulated.facts import has_feedback, numbers
from maai.domain.frohlich.simulated.persona import Persona
from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.simulated.reading import Stance
from maai.domain.frohlich.types import Certainty, Principle

_CERTAINTIES = tuple(Certainty)
# How often a participant strays to its second-best principle in a round, by certainty.
_WAVER = {
    Certainty.VERY_UNSURE: 0.30,
    Certainty.UNSURE: 0.20,
    Certainty.NO_OPINION: 0.15,
    Certainty.SURE: 0.07,
    Certainty.VERY_SURE: 0.03,
}
_BASE_FLOORS = [float(min(d)) for d in BASE_DISTRIBUTIONS]
_BASE_RANGES = [float(max(d) - min(d)) for d in BASE_DISTRIBUTIONS]


def slips(persona: Persona, ctx: Mapping[str, Any], rng: random.Random) -> bool:
    """Whether this answer carries an injected mistake. After feedback the participant has
    been told what was wrong and almost always fixes it."""
    rate = persona.error_rate * (0.05 if has_feedback(ctx) else 1.0)
    return rng.random() < rate


def reasons(ph: Phrases, persona: Persona, principle: Principle, rng: random.Random) -> str:
    count = 1 + round(persona.verbosity * 2)
    options = list(ph.reasons[principle])
    rng.shuffle(options)
    return " ".join(options[:count])


def retry_prefix(ph: Phrases, ctx: Mapping[str, Any], rng: random.Random) -> str:
    return render.pick(rng, ph.retry) if has_feedback(ctx) else ""


def ranking(ph: Phrases, persona: Persona, ctx: Mapping[str, Any], rng: random.Random) -> str:
    order = list(persona.ranking)
    # Lower places are held loosely: they drift between rankings, the top one rarely does.
    if rng.random() < 0.3:
        i = rng.choice((1, 2))
        order[i], order[i + 1] = order[i + 1], order[i]
    certainty = persona.certainty
    if rng.random() < 0.2:
        step = rng.choice((-1, 1))
        certainty = _CERTAINTIES[min(4, max(0, _CERTAINTIES.index(certainty) + step))]
    why = reasons(ph, persona, order[0], rng)
    prefix = retry_prefix(ph, ctx, rng)
    if slips(persona, ctx, rng):
        if rng.random() < 0.5:
            template = render.pick(rng, ph.ranking_unreadable)
            x, y = order[0], order[1]
            text = template.format(x=x.value, y=y.value, x_title=ph.short[x], y_title=ph.short[y])
            return render.paragraph(prefix, text, why)
        return (
            render.paragraph(prefix, render.pick(rng, ph.ranking_intro))
            + "\n"
            + (render.ranking_list(ph, order))
        )
    intro = render.paragraph(prefix, render.pick(rng, ph.ranking_intro))
    body = render.ranking_list(ph, order) + "\n\n" + render.certainty_line(ph, certainty)
    outro = render.paragraph(why, render.pick(rng, ph.ranking_outro))
    if rng.random() < 0.5:
        return f"{intro}\n{body}\n\n{outro}".strip()
    return f"{render.paragraph(prefix, why)}\n\n{body}".strip()


def table_amount(persona: Persona, principle: Principle, ctx: Mapping[str, Any]) -> int:
    """The persona's preferred floor or range carried over to the table in front of it: the
    affine map that takes the base table's floors (or ranges) onto this table's. On the base
    table this is the preferred amount itself."""
    preferred = persona.amount_for(principle)
    assert preferred is not None
    dists = [numbers(d) for d in ctx.get("distributions") or [] if isinstance(d, list)]
    dists = [d for d in dists if d]
    if principle is Principle.FLOOR_CONSTRAINT:
        base = _BASE_FLOORS
        shown = numbers(ctx.get("floors")) or [min(d) for d in dists]
    else:
        base = _BASE_RANGES
        shown = numbers(ctx.get("ranges")) or [max(d) - min(d) for d in dists]
    if not shown:
        return preferred
    lo, hi = min(base), max(base)
    if max(shown) > min(shown):
        amount = min(shown) + (preferred - lo) / (hi - lo) * (max(shown) - min(shown))
    else:
        amount = preferred * min(shown) / (sum(base) / len(base))
    return max(100, int(amount / 100 + 0.5) * 100)


def choice(ph: Phrases, persona: Persona, ctx: Mapping[str, Any], rng: random.Random) -> str:
    principle = persona.ranking[0]
    if rng.random() < _WAVER[persona.certainty]:
        principle = persona.ranking[1]
    amount = table_amount(persona, principle, ctx) if principle.needs_amount else None
    stance = Stance(principle, amount)
    prefix = retry_prefix(ph, ctx, rng)
    why = reasons(ph, persona, principle, rng) if rng.random() < persona.verbosity else ""
    if slips(persona, ctx, rng):
        if principle.needs_amount:
            text = render.pick(rng, ph.choice_missing_amount).format(
                nickname=ph.nicknames[principle], letter=principle.value, short=ph.short[principle]
            )
        else:
            other = persona.ranking[1]
            text = render.pick(rng, ph.choice_unreadable).format(
                x=principle.value,
                y=other.value,
                x_short=ph.short[principle],
                y_short=ph.short[other],
            )
        return render.paragraph(prefix, text, why)
    text = render.pick(rng, ph.choice).format(position=render.position(ph, stance))
    return render.paragraph(prefix, text, why)
