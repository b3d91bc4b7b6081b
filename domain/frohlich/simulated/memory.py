"""Memory rewrites: append one concise entry per step, and shorten on request.

Entries are lines starting with ``[step]``, which is what lets shortening keep the most
recent ones. Now and then the participant rambles past the word limit (an injected mistake)
so that the engine's shorten-then-cut path runs in ordinary simulated runs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from maai.domain.frohlich.simulated import render
from maai.domain.frohlich.simulated.facts import as_int, as_str
from maai.domain.frohlich.simulated.persona import Persona
from maai.domain.frohlich.simulated.phrases import Phrases
from maai.domain.frohlich.simulated.reading import Stance, certainty_in, ranking_in, stance_in

_DEFAULT_LIMIT = 5000
_OUTCOME_WORDS = 50
# A transcript line: optional "[Round 3]", then an agent name (config: one token), a colon.
_PROSE = re.compile(r"(?<=[.!?])\s+|\n+")
_SPOKE = re.compile(r"^(?:\[[^\]]*\]\s*)?([A-Za-z][A-Za-z0-9_\-]*): (.+)$", re.M)
_RANKING_STEPS = {"1.1", "1.2", "1.4", "2.3"}


def words(text: str) -> int:
    return len(text.split())


def _label(ph: Phrases, ctx: Mapping[str, Any]) -> str:
    step = as_str(ctx.get("step")) or "?"
    rnd = ctx.get("round")
    if step in {"1.3", "2.1"} and rnd is not None:
        return ph.memory_round_label.format(step=step, round=as_int(rnd, 0))
    return step


def _summary(ph: Phrases, ctx: Mapping[str, Any], label: str) -> str:
    step = as_str(ctx.get("step")) or ""
    last = as_str(ctx.get("last_output")) or ""
    if step in _RANKING_STEPS:
        order = ranking_in(last)
        if order is not None:
            certainty = certainty_in(last)
            return ph.memory_ranking.format(
                label=label,
                order=" > ".join(f"({p.value})" for p in order),
                certainty=ph.certainty[certainty] if certainty else ph.memory_unknown,
            )
    stance = stance_in(last) if step in {"1.3", "2.1"} else None
    if stance is not None:
        template = ph.memory_choice if step == "1.3" else ph.memory_round
        return template.format(label=label, position=render.brief(ph, stance))
    return ph.memory_step.format(label=label)


def _heard(ph: Phrases, outcome: str) -> str:
    """Each speaker's latest position in a discussion transcript ("Name: statement" lines)."""
    latest: dict[str, Stance] = {}
    for m in _SPOKE.finditer(outcome):
        stance = stance_in(m.group(2))
        if stance is not None and stance.complete:
            latest.pop(m.group(1), None)
            latest[m.group(1)] = stance
    if not latest:
        return ""
    positions = "; ".join(f"{name} {render.brief(ph, s)}" for name, s in latest.items())
    return ph.memory_heard.format(positions=positions)


def _outcome(ph: Phrases, ctx: Mapping[str, Any]) -> str:
    """The opening sentence of what happened and the first one about payoff or agreement;
    tables and transcripts are condensed, not copied."""
    outcome = as_str(ctx.get("outcome"))
    if outcome is None:
        return ""
    narrative = _SPOKE.sub("", outcome)
    prose = [s.strip() for s in _PROSE.split(narrative) if s.strip() and s.strip()[0] != "|"]
    picked = (
        prose[:1] + [s for s in prose[1:] if any(k in s.lower() for k in ph.memory_keywords)][:1]
    )
    text = " ".join(" ".join(picked).split()[:_OUTCOME_WORDS])
    return render.paragraph(text, _heard(ph, outcome))


def _fit(lines: list[str], limit: int) -> list[str]:
    """The most recent entry lines that fit in ``limit`` words (the newest one cut if it alone
    is too long)."""
    kept: list[str] = []
    total = 0
    for line in reversed([line for line in lines if line.startswith("[")]):
        if total + words(line) > limit:
            break
        kept.insert(0, line)
        total += words(line)
    if not kept and lines:
        kept = [" ".join(lines[-1].split()[:limit])]
    return kept


def update(ph: Phrases, persona: Persona, ctx: Mapping[str, Any], rng: random.Random) -> str:
    limit = max(1, as_int(ctx.get("limit_words"), _DEFAULT_LIMIT))
    old = [line for line in (as_str(ctx.get("memory")) or "").splitlines() if line.strip()]
    label = _label(ph, ctx)
    entry = render.paragraph(_summary(ph, ctx, label), _outcome(ph, ctx))
    if rng.random() < 0.5 * persona.error_rate:
        ramble: list[str] = []
        total = words("\n".join([*old, entry]))
        while total <= limit * 1.1:
            ramble.append(render.pick(rng, ph.memory_ramble))
            total += words(ramble[-1])
        return "\n".join([*old, " ".join(ramble), entry])
    return "\n".join(_fit([*old, entry], limit))


def shorten(ph: Phrases, persona: Persona, ctx: Mapping[str, Any], rng: random.Random) -> str:
    limit = max(1, as_int(ctx.get("limit_words"), _DEFAULT_LIMIT))
    lines = [line for line in (as_str(ctx.get("memory")) or "").splitlines() if line.strip()]
    if rng.random() < 0.25 * persona.error_rate:
        return "\n".join(lines)  # fails to shorten: the engine's cut path runs
    return "\n".join(_fit(lines, limit))
