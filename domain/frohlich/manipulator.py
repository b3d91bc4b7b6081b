"""The manipulator condition (docs/frohlich.md "Conditions"): after Phase 1 one named agent is
given a target principle, chosen by rule from the other agents' final Phase-1 rankings, and a
private instruction, shown only in its own prompts, to steer the group to it."""

from __future__ import annotations

from collections.abc import Mapping

from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.events import ManipulatorTargetChosen
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.prompts import word
from maai.domain.frohlich.state import State
from maai.domain.frohlich.types import Principle, Ranking
from maai.domain.walk import Emit, Walk, wait

TARGET_KEY = "manipulator/target"
FINAL_STEP = "1.4"


def borda_scores(rankings: Mapping[str, Ranking]) -> dict[Principle, int]:
    """Each ranking gives its first principle 3 points, its second 2, third 1, last 0."""
    scores = dict.fromkeys(Principle, 0)
    for ranking in rankings.values():
        for place, principle in enumerate(ranking.order):
            scores[principle] += len(ranking.order) - 1 - place
    return scores


def target_of(scores: Mapping[Principle, int]) -> Principle:
    """The lowest score; a tie goes to the later letter."""
    return min(Principle, key=lambda p: (scores[p], -list(Principle).index(p)))


def final_rankings(state: State, names: list[str]) -> dict[str, Ranking | None]:
    out: dict[str, Ranking | None] = {}
    for name in names:
        found = [r for step, r in state.agents[name].rankings if step == FINAL_STEP]
        out[name] = found[-1] if found else None
    return out


def choose_target(state: State, config: FrohlichConfig) -> Walk[None]:
    """Record the target once Phase 1 is over (a no-op without the condition)."""
    if config.manipulator is None or TARGET_KEY in state.records:
        return
    manipulator = config.manipulator.agent
    others = [a.name for a in config.agents if a.name != manipulator]
    rankings = final_rankings(state, others)
    counted = {name: r for name, r in rankings.items() if r is not None}
    scores = borda_scores(counted)
    event = ManipulatorTargetChosen(
        manipulator=manipulator,
        scores=scores,
        counted=list(counted),
        uncounted=[name for name, r in rankings.items() if r is None],
        target=target_of(scores),
    )
    yield from wait([Emit(event)])


def target_for(state: State, agent: str) -> Principle | None:
    """The target ``agent`` is steering to, once it has been told; ``None`` otherwise."""
    chosen = state.records.get(TARGET_KEY)
    if isinstance(chosen, ManipulatorTargetChosen) and chosen.manipulator == agent:
        return chosen.target
    return None


def instruction(target: Principle, language: str) -> str:
    named = word(
        language, "choice", letter=target.value, title=word(language, f"title_{target.value}")
    )
    return render_template("manipulator_instruction", language, target=named)
