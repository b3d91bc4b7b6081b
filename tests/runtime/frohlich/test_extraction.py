"""The utility agent's extraction models, schemas and tolerant parser."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest
from agents.strict_schema import ensure_strict_json_schema

from maai.domain.frohlich.extraction import (
    SCHEMAS,
    ChoiceExtraction,
    Extraction,
    ExtractionFailure,
    PollExtraction,
    RankingExtraction,
    parse_extraction,
    request_schema_fields,
    schema_for,
    schema_instructions,
)
from maai.domain.frohlich.types import Certainty, Principle


@pytest.mark.parametrize("model_cls", list(SCHEMAS))
def test_schemas_are_strict_and_match_their_models(model_cls: type[Extraction]) -> None:
    name, schema = schema_for(model_cls)
    assert name.endswith("_extraction")
    # Already strict: the SDK's strictifier has nothing to change.
    assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    assert set(schema["properties"]) == set(model_cls.model_fields)
    assert schema["required"] == list(schema["properties"])
    assert all(field.is_required() for field in model_cls.model_fields.values())


@pytest.mark.parametrize(
    ("model_cls", "data"),
    [
        (RankingExtraction, {"order": ["b", "a", "d", "c"], "certainty": "sure", "readable": True}),
        (RankingExtraction, {"order": None, "certainty": None, "readable": False}),
        (ChoiceExtraction, {"principle": "d", "amount": 2000, "readable": True}),
        (ChoiceExtraction, {"principle": "c", "amount": None, "readable": True}),
        (PollExtraction, {"answer": "yes", "readable": True}),
        (PollExtraction, {"answer": None, "readable": False}),
    ],
)
def test_what_the_schema_allows_the_model_reads(
    model_cls: type[Extraction], data: dict[str, Any]
) -> None:
    parsed = parse_extraction(json.dumps(data), model_cls)
    assert isinstance(parsed, model_cls)
    assert parsed.model_dump(mode="json") == data


def test_ranking_values_are_domain_types() -> None:
    parsed = parse_extraction(
        '{"order": ["a", "b", "c", "d"], "certainty": "very_sure", "readable": true}',
        RankingExtraction,
    )
    assert isinstance(parsed, RankingExtraction)
    assert parsed.order == list(Principle) and parsed.certainty is Certainty.VERY_SURE


@pytest.mark.parametrize(
    "text",
    [
        '{"answer": "no", "readable": true}',
        '```json\n{"answer": "no", "readable": true}\n```',
        '```\n{"answer": "no", "readable": true}\n```',
        '  ```JSON {"answer": "no", "readable": true}```  ',
        'Here is the result:\n```json\n{"answer": "no", "readable": true}\n```\nDone.',
        'Sure! {"answer": "no", "readable": true} Hope that helps.',
    ],
)
def test_parser_tolerates_fences_and_words_around(text: str) -> None:
    assert parse_extraction(text, PollExtraction) == PollExtraction(answer="no", readable=True)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty reply"),
        ("I would say yes.", "no JSON object found"),
        ('["yes"]', "expected a JSON object, got list"),
        ('{"answer": "maybe", "readable": true}', "answer: Input should be 'yes' or 'no'"),
        ('{"answer": "yes"}', "readable: Field required"),
        ('{"answer": "yes", "readable": true, "why": "x"}', "why: unexpected property"),
    ],
)
def test_parser_gives_reasons(text: str, reason: str) -> None:
    result = parse_extraction(text, PollExtraction)
    assert isinstance(result, ExtractionFailure)
    assert reason in result.reason


def test_schema_instructions_are_deterministic_and_carry_the_schema() -> None:
    _, schema = schema_for(ChoiceExtraction)
    text = schema_instructions(schema)
    assert text == schema_instructions(copy.deepcopy(schema))
    assert '"additionalProperties": false' in text and '"principle"' in text


def test_request_schema_fields() -> None:
    name, schema = schema_for(RankingExtraction)
    assert request_schema_fields(RankingExtraction, json_schema=True) == (
        {"output_schema": schema, "schema_name": name},
        "",
    )
    fields, words = request_schema_fields(RankingExtraction, json_schema=False)
    assert fields == {} and words == schema_instructions(schema)


def test_utility_module_imports_nothing_effectful() -> None:
    code = (
        "import sys, domain.frohlich.extraction; "
        "effectful = ('agents', 'openai', 'httpx2', 'httpx', 'sqlalchemy'); "
        "bad = [m for m in effectful if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
