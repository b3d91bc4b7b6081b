"""The utility agent's structured outputs and how they are judged.

The utility agent only extracts what a participant's text states; whether that is a valid
answer is decided here, by the same rules as the deterministic parsers.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from domain.frohlich.types import Certainty, Principle, PrincipleChoice, Ranking

Letter = Literal["a", "b", "c", "d"]
CertaintyWord = Literal["very_unsure", "unsure", "no_opinion", "sure", "very_sure"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RankingExtraction(_Strict):
    order: list[Letter] | None
    certainty: CertaintyWord | None


class ChoiceExtraction(_Strict):
    principle: Letter | None
    amount: int | None


class PollExtraction(_Strict):
    answer: bool | None


EXTRACTIONS: dict[str, type[_Strict]] = {
    "ranking": RankingExtraction,
    "choice": ChoiceExtraction,
    "ballot": ChoiceExtraction,
    "poll": PollExtraction,
}

TASK_DESCRIPTIONS: dict[str, str] = {
    "ranking": "rank the four principles (a), (b), (c), (d) from best to worst and state a "
    "certainty (very unsure, unsure, no opinion, sure, very sure). Extract 'order' (the four "
    "letters, best first) and 'certainty'.",
    "choice": "choose one principle (a), (b), (c) or (d); for (c) and (d) a dollar amount is "
    "required. Extract 'principle' (the letter) and 'amount' (whole dollars, or null).",
    "ballot": "vote for one principle (a), (b), (c) or (d) in a secret ballot; for (c) and (d) "
    "a dollar amount is required. Extract 'principle' (the letter) and 'amount' (whole "
    "dollars, or null).",
    "poll": "answer yes or no to holding a vote now. Extract 'answer' (true for yes, false "
    "for no, null if neither is stated).",
}


def schema_for(kind: str) -> dict[str, Any]:
    schema = EXTRACTIONS[kind].model_json_schema()
    # Strict structured output: every property required (nullable instead of optional).
    schema["required"] = list(schema.get("properties", {}))
    schema["additionalProperties"] = False
    return schema


def schema_instructions(kind: str, in_prompt: bool) -> str:
    if not in_prompt:
        return "Answer with the JSON object only."
    schema = json.dumps(schema_for(kind), sort_keys=True)
    return (
        "Answer with a single JSON object, and nothing else, that matches this JSON schema:\n"
        f"{schema}"
    )


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def read_extraction(
    kind: str, text: str
) -> tuple[Literal["ok"], _Strict] | tuple[Literal["bad"], str]:
    """Parse the utility agent's JSON (tolerating a code fence around it)."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return "bad", f"the utility agent's answer is not JSON ({exc.msg})"
    try:
        return "ok", EXTRACTIONS[kind].model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        return "bad", f"the utility agent's JSON breaks the schema at {where}: {first['msg']}"


def judge(
    kind: str, extraction: _Strict
) -> tuple[Literal["accepted"], Any] | tuple[Literal["rejected"], str]:
    """Turn an extraction into a value or the reason (for the participant) it is not valid."""
    if isinstance(extraction, RankingExtraction):
        order = extraction.order or []
        if len(order) != 4 or len(set(order)) != 4:
            return "rejected", (
                "Your answer did not state a complete ranking of all four principles from best "
                "to worst."
            )
        if extraction.certainty is None:
            return "rejected", "Your answer did not state how certain you are of your ranking."
        ranking = Ranking(
            order=tuple(Principle(x) for x in order),  # type: ignore[arg-type]
            certainty=Certainty(extraction.certainty),
        )
        return "accepted", ranking.model_dump(mode="json")
    if isinstance(extraction, ChoiceExtraction):
        if extraction.principle is None:
            return "rejected", "Your answer did not name one of the principles (a), (b), (c), (d)."
        principle = Principle(extraction.principle)
        if principle.needs_amount:
            if extraction.amount is None or extraction.amount <= 0:
                what = "floor" if principle is Principle.FLOOR_CONSTRAINT else "range"
                return "rejected", (
                    f"You chose ({principle.value}) but did not state the {what} amount in "
                    "dollars, which this principle requires."
                )
            choice = PrincipleChoice(principle=principle, amount=extraction.amount)
        else:
            choice = PrincipleChoice(principle=principle)
        return "accepted", choice.model_dump(mode="json")
    if isinstance(extraction, PollExtraction):
        if extraction.answer is None:
            return "rejected", "Your answer did not say yes or no."
        return "accepted", extraction.answer
    raise TypeError(f"unknown extraction {type(extraction).__name__}")
