"""Reading a participant's answer, as events every experiment may use (docs/experiments.md).

An answer is read by the experiment's deterministic parser first; where that cannot decide,
by the utility agent. Every reading records the raw text and who read it. An answer that
could not be read after the allowed attempts is recorded as missing, never defaulted.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from maai.domain.events import Event

ParseSource = Literal["parser", "utility"]


class AnswerRead(Event):
    """What every reading of an answer records. ``kind`` is the experiment's name for what
    was asked (``ranking``, ``belief``...); ``address`` is the participant's call whose text
    was read; for the utility source, ``via`` is the extraction call."""

    agent: str
    kind: str
    slot: str
    address: str
    attempt: int
    source: ParseSource
    via: str | None = None
    raw_text: str

    @property
    def key(self) -> str:
        return f"parse/{self.via or self.address}"


class AnswerAccepted(AnswerRead):
    """The answer was read and is valid."""

    TYPE: ClassVar[str] = "answer.accepted"
    value: Any


class AnswerRejected(AnswerRead):
    """The answer was read and is not acceptable; ``reason`` is what the agent is told."""

    TYPE: ClassVar[str] = "answer.rejected"
    reason: str


class AnswerUndecided(AnswerRead):
    """The deterministic parser could not decide; the utility agent is asked next. With
    ``source == "utility"`` the extraction itself could not be used (e.g. broken JSON)."""

    TYPE: ClassVar[str] = "answer.undecided"
    reason: str


class AnswerMissing(Event):
    """No valid answer after the allowed attempts: recorded as missing, never defaulted."""

    TYPE: ClassVar[str] = "answer.missing"
    agent: str
    kind: str
    slot: str
    attempts: int
    last_reason: str

    @property
    def key(self) -> str:
        return f"missing/{self.slot}"


ANSWER_EVENTS: tuple[type[Event], ...] = (
    AnswerAccepted,
    AnswerRejected,
    AnswerUndecided,
    AnswerMissing,
)
