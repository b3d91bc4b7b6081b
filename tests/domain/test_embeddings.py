"""Embeddings as recorded calls (maai.domain.embeddings): one address per text, the vector's
compact encoding read back exactly as float32, and refusals of what is not a vector."""

from __future__ import annotations

import base64
import math
import struct

import pytest

from maai.domain.embeddings import (
    EMBED,
    EMBEDDER,
    EmbeddingError,
    EmbeddingsConfig,
    SimulatedEmbedder,
    decode_vector,
    dot,
    embedding_address,
    embedding_request,
    encode_vector,
    local_vector,
)


def test_equal_texts_share_an_address_and_different_texts_do_not() -> None:
    a = embedding_address("Alice went to the Game Room")
    assert a == embedding_address("Alice went to the Game Room")
    assert a != embedding_address("Alice went to the Game Room.")
    assert a.startswith("embed/")


def test_a_request_names_the_embedder_the_purpose_and_asked_dimensions() -> None:
    config = EmbeddingsConfig(model="text-embedding-3-small", dimensions=64)
    request = embedding_request("a text", config)
    assert (request.agent, request.purpose, request.model) == (
        EMBEDDER,
        EMBED,
        "text-embedding-3-small",
    )
    assert request.input == "a text" and request.system == ""
    assert request.context == {"dimensions": 64}
    assert "dimensions" not in embedding_request("a text", EmbeddingsConfig(model="m")).context


def test_a_vector_is_stored_as_little_endian_float32_and_read_back_at_unit_length() -> None:
    values = [3.0, 4.0, 0.0]
    text = encode_vector(values)
    assert base64.b64decode(text) == struct.pack("<3f", 3.0, 4.0, 0.0)
    assert len(text) == 16  # 12 bytes, not ~20 characters a number as JSON
    assert decode_vector(text) == pytest.approx((0.6, 0.8, 0.0))


def test_float32_keeps_what_a_provider_sends_to_seven_digits() -> None:
    sent = [0.0123456789, -0.987654321, 0.5]
    norm = math.sqrt(sum(v * v for v in sent))
    got = decode_vector(encode_vector(sent))
    assert got == pytest.approx([v / norm for v in sent], rel=1e-6)


@pytest.mark.parametrize(
    "text, why",
    [
        ("not base64!", "not base64"),
        (base64.b64encode(b"\x00\x01\x02").decode(), "whole number of float32"),
        ("", "whole number of float32"),
        (base64.b64encode(struct.pack("<2f", 1.0, math.nan)).decode(), "finite"),
    ],
)
def test_what_is_not_a_vector_is_refused_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(EmbeddingError, match=why):
        decode_vector(text)


def test_a_vector_that_cannot_be_stored_is_refused() -> None:
    with pytest.raises(EmbeddingError):
        encode_vector([])
    with pytest.raises(EmbeddingError):
        encode_vector([1.0, math.inf])


def test_vectors_of_different_sizes_cannot_be_compared() -> None:
    with pytest.raises(EmbeddingError, match="3 and 2 dimensions"):
        dot((1.0, 0.0, 0.0), (1.0, 0.0))


def test_the_simulated_embedder_answers_the_local_vector_as_a_provider_would() -> None:
    config = EmbeddingsConfig(model="simulated")
    text = "Bob said hello to Carla in the Game Room"
    answer = SimulatedEmbedder().answer(embedding_request(text, config), None)
    local = local_vector(text)
    assert decode_vector(answer) == pytest.approx(local, abs=1e-6)
    assert dot(decode_vector(answer), local_vector("bob said hello")) > 0.5
    assert dot(decode_vector(answer), local_vector("zebra quantum violin")) == 0.0
