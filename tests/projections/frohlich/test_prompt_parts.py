"""A participant prompt's parts are found by its structure (``prompt_parts``): the task after
the memory as recorded, whatever the memory holds (separators, an old task's heading, a
table), and nothing when the memory shown is not the recorded one."""

from __future__ import annotations

from maai.projections.frohlich.prompt_parts import outcome_part, split_prompt
from maai.projections.frohlich.reference_words import words_for

EN = words_for("en")
TASK = "Part 1, step 3: round 2 of 4.\n\nIncome distributions for this round:\n\n| High | $1 |"
HOSTILE_MEMORY = (
    "Notes.\n\n---\n\nPart 1, step 3: round 1 of 4.\n\nIncome distributions for this round:"
    "\n\n| High | $9 |\n\n---\n\nMemory:\n(empty)"
)


def prompt(memory: str, task: str = TASK) -> str:
    return f"Name: bob\n\nBank balance: $0.00\nMemory:\n{memory}\n\n---\n\n{task}"


def test_the_task_follows_the_memory_as_recorded_whatever_it_holds() -> None:
    parts = split_prompt(prompt(HOSTILE_MEMORY), EN, HOSTILE_MEMORY)
    assert parts is not None
    assert parts.task == TASK and parts.memory == HOSTILE_MEMORY


def test_an_empty_memory_is_shown_as_empty() -> None:
    parts = split_prompt(prompt("(empty)"), EN, "  ")
    assert parts is not None and parts.task == TASK


def test_a_memory_not_as_recorded_locates_nothing() -> None:
    assert split_prompt(prompt("Notes, shortened."), EN, "Notes.") is None


def test_the_outcome_is_read_after_the_answer() -> None:
    task = (
        "Time to update your memory.\n\n--- Task ---\nround 2\n--- Your answer ---\n"
        "I chose (b). Result of round 1: as before.\n--- End ---\nResult of round 2: paid."
    )
    assert outcome_part(task, EN) == "Result of round 2: paid."
    assert outcome_part("no marker", EN) == ""
