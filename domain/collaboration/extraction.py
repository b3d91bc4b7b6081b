"""The utility agent's extraction for the collaboration game: the numbers (belief,
prediction) or the choice a participant's text states. The message itself is never
extracted: it is taken as written (``parsing.read_turn``)."""

from __future__ import annotations

from typing import Any

from maai.domain.collaboration.parsing import (
    DECISION_LABELS,
    TURN_LABELS,
    before_labels,
    sections,
)
from maai.domain.extraction import (
    Extraction,
    ExtractionFailure,
    json_object,
    nullable,
    parse_extraction,
)

SCHEMA_NAME = "collaboration_extraction"
SCHEMA: dict[str, Any] = json_object(
    {
        "belief": nullable(
            {"type": "integer", "description": "the participant's own belief, 0 to 100"}
        ),
        "prediction": nullable(
            {"type": "integer", "description": "the predicted belief of the partner, 0 to 100"}
        ),
        "option": nullable({"type": "string", "description": "the name of the option chosen"}),
        "readable": {
            "type": "boolean",
            "description": "false if the text states no answer that can be read",
        },
    }
)


class CollaborationExtraction(Extraction):
    belief: int | None
    prediction: int | None
    option: str | None


TASKS: dict[str, dict[str, str]] = {
    "initial": {
        "what": "state their belief (one whole number from 0 to 100) that a collaboration "
        "succeeds. Extract 'belief'; 'prediction' and 'option' are null.",
        "how": "Please give your belief as one whole number from 0 to 100 after BELIEF:.",
    },
    "turn": {
        "what": "state their updated belief (0 to 100) that a collaboration succeeds and their "
        "prediction (0 to 100) of their partner's belief. Extract 'belief' and 'prediction'; "
        "'option' is null.",
        "how": "Please give one whole number from 0 to 100 after BELIEF: and one after "
        "PREDICTION:.",
    },
    "update": {
        "what": "state their updated belief (0 to 100) that a collaboration succeeds and their "
        "prediction (0 to 100) of their partner's belief. Extract 'belief' and 'prediction'; "
        "'option' is null.",
        "how": "Please give one whole number from 0 to 100 after BELIEF: and one after "
        "PREDICTION:.",
    },
    "decision": {
        "what": "choose one of their options. Extract 'option' (its name as given); "
        "'belief' and 'prediction' are null.",
        "how": "Please name one of your options after CHOICE:.",
    },
}


def _percent_ok(value: int | None) -> bool:
    return value is not None and 0 <= value <= 100


def judge(
    purpose: str, reply: str, text: str, own_options: list[str], *, message: bool = False
) -> tuple[bool, Any] | ExtractionFailure:
    """(True, value) in the parser's form, (False, what the participant is told), or why the
    reply itself could not be used."""
    read = parse_extraction(reply, CollaborationExtraction)
    if isinstance(read, ExtractionFailure):
        return read
    parts = sections(text, DECISION_LABELS if purpose == "decision" else TURN_LABELS)
    if purpose == "decision":
        chosen = read.option.strip() if read.readable and read.option else None
        match = next((o for o in own_options if chosen and o.upper() == chosen.upper()), None)
        if match is None:
            return (
                False,
                f"Your answer did not name one of your options ({', '.join(own_options)}).",
            )
        return True, {"option": match, "reasoning": parts.get("reasoning") or None}
    wants_prediction = purpose in ("turn", "update")
    if not read.readable or not _percent_ok(read.belief):
        return False, "Your answer did not state your belief as a number from 0 to 100."
    if wants_prediction and not _percent_ok(read.prediction):
        return False, "Your answer did not state your prediction as a number from 0 to 100."
    value: dict[str, Any] = {
        "reasoning": parts.get("reasoning") or None,
        "belief": read.belief,
    }
    if message:
        body = parts.get("message")
        value["message"] = (
            body if body is not None else before_labels(text, TURN_LABELS)
        ).strip()
    if wants_prediction:
        value["prediction"] = read.prediction
    return True, value
