"""The utility agent's structured extraction: output models, their JSON schemas, a tolerant
parser for what comes back, and the judgement of whether the extracted answer is valid.

The utility agent only extracts what a participant's text states; whether that is a valid
answer is decided here, by the same rules as the deterministic parsers.

The schemas are written out by hand rather than generated from the models: a schema is part
of every extraction request and so of its hash, and a generator's output may change with a
pydantic upgrade, which would make ``verify`` report drift in runs nothing changed. Tests
keep the two in step.
"""

from __future__ import annotations

from typing import Any, Literal

from maai.domain.extraction import Extraction as Extraction
from maai.domain.extraction import ExtractionFailure as ExtractionFailure
from maai.domain.extraction import json_object, nullable, schema_instructions
from maai.domain.extraction import parse_extraction as parse_extraction
from maai.domain.frohlich.types import Certainty, Principle, PrincipleChoice, Ranking

_PRINCIPLE_LETTERS = [p.value for p in Principle]
_CERTAINTIES = [c.value for c in Certainty]


class RankingExtraction(Extraction):
    order: list[Principle] | None  # best first, as the participant gave it (unchecked)
    certainty: Certainty | None


class ChoiceExtraction(Extraction):
    principle: Principle | None
    amount: int | None  # whole dollars, for (c) and (d)


class PollExtraction(Extraction):
    answer: Literal["yes", "no"] | None


_READABLE = {
    "type": "boolean",
    "description": "false if the text states no answer that can be read",
}

RANKING_SCHEMA: dict[str, Any] = json_object(
    {
        "order": nullable(
            {
                "type": "array",
                "items": {"type": "string", "enum": _PRINCIPLE_LETTERS},
                "description": "principle letters, best first, as the text ranks them",
            }
        ),
        "certainty": nullable({"type": "string", "enum": _CERTAINTIES}),
        "readable": _READABLE,
    }
)

CHOICE_SCHEMA: dict[str, Any] = json_object(
    {
        "principle": nullable({"type": "string", "enum": _PRINCIPLE_LETTERS}),
        "amount": nullable(
            {"type": "integer", "description": "the constraint amount in whole dollars"}
        ),
        "readable": _READABLE,
    }
)

POLL_SCHEMA: dict[str, Any] = json_object(
    {
        "answer": nullable({"type": "string", "enum": ["yes", "no"]}),
        "readable": _READABLE,
    }
)

SCHEMAS: dict[type[Extraction], tuple[str, dict[str, Any]]] = {
    RankingExtraction: ("ranking_extraction", RANKING_SCHEMA),
    ChoiceExtraction: ("choice_extraction", CHOICE_SCHEMA),
    PollExtraction: ("poll_extraction", POLL_SCHEMA),
}


def schema_for(model_cls: type[Extraction]) -> tuple[str, dict[str, Any]]:
    """``(schema_name, schema)`` for ``ModelRequest.schema_name`` / ``output_schema``."""
    return SCHEMAS[model_cls]


def request_schema_fields(
    model_cls: type[Extraction], *, json_schema: bool
) -> tuple[dict[str, Any], str]:
    """What an extraction request carries: the ``ModelRequest`` keyword arguments, and the
    text to append to its prompt ("" when the server takes the schema itself)."""
    name, schema = schema_for(model_cls)
    if json_schema:
        return {"output_schema": schema, "schema_name": name}, ""
    return {}, schema_instructions(schema)


EXTRACTION_FOR_KIND: dict[str, type[Extraction]] = {
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
    "poll": "answer yes or no to holding a vote now. Extract 'answer' ('yes', 'no', or null "
    "if neither is stated).",
}


def judge(extraction: Extraction) -> tuple[bool, Any]:
    """``(True, value)`` with the value in its JSON form, or ``(False, reason)`` with the reason
    the participant is told."""
    if isinstance(extraction, RankingExtraction):
        order = extraction.order or []
        if not extraction.readable or len(order) != 4 or len(set(order)) != 4:
            return False, (
                "Your answer did not state a complete ranking of all four principles from best "
                "to worst."
            )
        if extraction.certainty is None:
            return False, "Your answer did not state how certain you are of your ranking."
        ranking = Ranking(order=tuple(order), certainty=extraction.certainty)  # type: ignore[arg-type]
        return True, ranking.model_dump(mode="json")
    if isinstance(extraction, ChoiceExtraction):
        if not extraction.readable or extraction.principle is None:
            return False, "Your answer did not name one of the principles (a), (b), (c), (d)."
        principle = extraction.principle
        if not principle.needs_amount:
            return True, PrincipleChoice(principle=principle).model_dump(mode="json")
        if extraction.amount is None or extraction.amount <= 0:
            what = "floor" if principle is Principle.FLOOR_CONSTRAINT else "range"
            return False, (
                f"You chose ({principle.value}) but did not state the {what} amount in dollars, "
                "which this principle requires."
            )
        choice = PrincipleChoice(principle=principle, amount=extraction.amount)
        return True, choice.model_dump(mode="json")
    if isinstance(extraction, PollExtraction):
        if not extraction.readable or extraction.answer is None:
            return False, "Your answer did not say yes or no."
        return True, extraction.answer == "yes"
    raise TypeError(f"unknown extraction {type(extraction).__name__}")
