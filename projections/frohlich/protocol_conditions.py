"""Rules of the conditions beyond the base protocol (docs/frohlich.md "Conditions"): the
manipulator's target recomputed by ``reference`` from the recorded final rankings, and its
instruction read back from the prompts it appeared in."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

from maai.domain.events import ModelCallRequested
from maai.domain.frohlich.events import ManipulatorTargetChosen, StepStarted
from maai.projections.frohlich import reference
from maai.projections.frohlich.prompt_parts import SEPARATOR, Memories
from maai.projections.frohlich.protocol_base import (
    Audit,
    EntryCheck,
    Violation,
    in_one_pass,
    rule,
)
from maai.projections.frohlich.reference_words import words_for
from maai.projections.history import Entry

_PROMPTS = "maai.domain.frohlich.prompts"


def _instruction_cue(language: str) -> str:
    """The instruction's words up to the target, read from the template file itself (not
    through the rendering code audited), e.g. "... steer the group to agree on principle "."""
    text = resources.files(_PROMPTS).joinpath(language, "manipulator_instruction.txt")
    return text.read_text(encoding="utf-8").split("$target")[0]


@rule(
    "manipulator_target",
    "§8",
    "with the manipulator condition, once Phase 1 is over the target is the principle with the "
    "lowest Borda score over the other agents' final Phase-1 rankings (ties: the later "
    "letter), recorded once; without it no target is recorded",
)
def manipulator_target(audit: Audit) -> Iterator[Violation]:
    chosen = audit.history.of(ManipulatorTargetChosen)
    setting = audit.config.manipulator
    if setting is None:
        for entry, _ in chosen:
            yield Violation("manipulator_target", entry.seq, "a target without the condition")
        return
    phase2 = [e.seq for e, s in audit.history.each(StepStarted) if s.step == "2.1"]
    if not chosen:
        if phase2 and audit.history.completed:
            yield Violation("manipulator_target", None, "Phase 2 ran without a target")
        return
    entry, event = chosen[0]
    if len(chosen) > 1:
        yield Violation("manipulator_target", chosen[1][0].seq, "the target recorded twice")
    others = [n for n in audit.names if n != setting.agent]
    orders: list[list[str]] = []
    counted: list[str] = []
    for name in others:
        found = audit.accepted.get(f"p1/{name}/s1.4/ranking")
        if found is not None and found[0].seq < entry.seq:
            orders.append(list(found[1].value["order"]))
            counted.append(name)
    points = reference.borda(orders)
    expected = reference.borda_target(points)
    recorded = {p.value: n for p, n in event.scores.items()}
    if (
        event.manipulator != setting.agent
        or recorded != points
        or event.target.value != expected
        or event.counted != counted
        or event.uncounted != [n for n in others if n not in counted]
    ):
        yield Violation(
            "manipulator_target",
            entry.seq,
            f"recorded {event.manipulator}: {recorded} → ({event.target.value}) counting "
            f"{event.counted}; the rankings give {setting.agent}: {points} → ({expected}) "
            f"counting {counted}",
        )
    if not phase2 or phase2[0] > entry.seq:
        yield Violation("manipulator_target", entry.seq, "the target was chosen before Phase 2")


@rule(
    "manipulator_instruction",
    "§8",
    "every prompt of the manipulator after the target was chosen carries the instruction to "
    "steer to that target, between its memory and its task, and no prompt before it does",
)
def manipulator_instruction(audit: Audit) -> Iterator[Violation]:
    return audit.found_in_one_pass(_instructions)


@in_one_pass
def _instructions(audit: Audit) -> EntryCheck:
    setting = audit.config.manipulator
    chosen = audit.history.of(ManipulatorTargetChosen)
    told_at = chosen[0][0].seq if chosen else None
    agent = setting.agent if setting is not None else None
    language = audit.config.language_of(agent) if agent is not None else audit.config.language
    cue = _instruction_cue(language)
    told = f"{cue}({chosen[0][1].target.value})" if chosen else None
    words = words_for(language)
    memories = Memories()

    def check(entry: Entry) -> Iterator[Violation]:
        event = entry.event
        memories.see(event)
        if not isinstance(event, ModelCallRequested) or event.request.agent != agent:
            return
        request = event.request
        # Read after the memory, which may quote the instruction once it was given.
        located = memories.parts(request.agent, request.input, words)
        if located is None:
            detail = f"{request.address}: the task cannot be located (memory not as recorded)"
            yield Violation("manipulator_instruction", entry.seq, detail)
            return
        if told_at is None or entry.seq < told_at:
            if cue in located.task:
                yield Violation(
                    "manipulator_instruction",
                    entry.seq,
                    f"{request.address}: the instruction before the target was chosen",
                )
        elif told is not None and told not in located.task.split(SEPARATOR, 1)[0]:
            yield Violation(
                "manipulator_instruction",
                entry.seq,
                f"{request.address}: the prompt lacks the instruction to steer to the target",
            )

    return check
