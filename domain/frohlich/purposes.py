"""Why the Frohlich protocol makes each call. The simulated participant learns this from the
engine, never from the prompt text."""

from __future__ import annotations

from enum import StrEnum

from maai.domain import calls


class Purpose(StrEnum):
    RANKING = "ranking"  # rank the four principles with a certainty
    CHOICE = "choice"  # choose a principle (with amount) in a Phase-1 round
    REASONING = "reasoning"  # private reasoning before a Phase-2 statement
    STATEMENT = "statement"  # public Phase-2 statement (may propose a vote)
    POLL = "poll"  # yes/no: hold the vote now?
    BALLOT = "ballot"  # secret ballot
    MEMORY = calls.MEMORY  # rewrite memory after a step
    MEMORY_SHORTEN = calls.MEMORY_SHORTEN  # memory was over the limit: shorten it
    EXTRACT = calls.EXTRACT  # utility agent: structured extraction from a participant's text
