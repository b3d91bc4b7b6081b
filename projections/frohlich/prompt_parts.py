"""Where each part of a participant prompt lies, found by the prompt's structure
(docs/frohlich.md §5): the preamble (name, role, the broad explanation, the bank balance,
the memory section as recorded), then ``---``, then the task; in a memory-update task, the
step's task and the agent's answer, then the outcome after the answer's end marker.

Rules read only the part they check: a memory that quotes "round 1 of 4", an old table or
another agent's words, or an answer that restates an earlier result, is never taken for what
the code showed. The memory is located as recorded (``memory.updated``), never by searching,
since it may hold any text, separators included."""

from __future__ import annotations

from dataclasses import dataclass

from maai.domain.events import Event
from maai.domain.frohlich.events import MemoryUpdated
from maai.projections.frohlich.reference_words import PromptWords

SEPARATOR = "\n\n---\n\n"


@dataclass(frozen=True)
class PromptParts:
    preamble: str  # up to the end of the memory section
    memory: str  # the memory as shown
    task: str  # everything after the separator that ends the memory section
    head: str  # the preamble before its memory section (name, role, explanation, balance)


def split_prompt(text: str, words: PromptWords, memory: str) -> PromptParts | None:
    """The parts of ``text`` for an agent whose recorded memory is ``memory``; ``None`` when
    the prompt does not show that memory where the preamble ends (a rule then says it cannot
    locate its part: ``prompt_memory_and_balance`` names the cause)."""
    shown = memory.strip() or words.empty_memory
    block = words.memory_head + shown + SEPARATOR
    at = text.find(block)
    if at < 0:
        return None
    end = at + len(block)
    preamble = text[: at + len(words.memory_head) + len(shown)]
    return PromptParts(preamble, shown, text[end:], text[:at])


def outcome_part(task: str, words: PromptWords) -> str:
    """What a memory-update task tells after the agent's answer (the round's result): the text
    after the last end-of-answer marker, which only the template writes after the answer."""
    at = task.rfind(words.answer_end)
    return task[at + len(words.answer_end) :] if at >= 0 else ""


class Memories:
    """Each agent's memory as last recorded, followed event by event in seq order."""

    def __init__(self) -> None:
        self.of: dict[str, str] = {}

    def see(self, event: Event) -> None:
        if isinstance(event, MemoryUpdated):
            self.of[event.agent] = event.memory

    def parts(self, agent: str, text: str, words: PromptWords) -> PromptParts | None:
        return split_prompt(text, words, self.of.get(agent, ""))
