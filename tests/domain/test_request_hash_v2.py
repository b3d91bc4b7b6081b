"""Request hash version 2 (docs/ledger.md, "Request hashes"): the shared public history cut
out of a request's hash. The hash made from the kept digests of shared texts equals the one
recomputed from the request's JSON alone, by this code and by the audit's own, and it
changes with the cut text and with the offsets (tests/domain/test_shared_text.py: a
version-1 request is hashed and stored exactly as before)."""

from __future__ import annotations

import hashlib
import random

import pytest

from maai.canonical import canonical_json
from maai.domain.calls import HashCut, ModelRequest
from maai.projections.request_hashes import hash_v2
from tests.domain.test_shared_text import grown, request_showing


def test_item_lists_keep_their_digest() -> None:
    _, lists = grown(random.Random(1), 30)
    for items in lists:
        assert items.sha256() == hashlib.sha256(canonical_json(list(items)).encode()).hexdigest()


@pytest.mark.parametrize("seed", range(20))
def test_version_2_from_kept_digests_equals_the_hash_from_the_json(seed: int) -> None:
    texts, lists = grown(random.Random(seed), 12)
    for block, items in zip(texts, lists, strict=True):
        request = request_showing(block, items, seed).sharing(block, "history", cut=True)
        assert request.hash_cuts is not None and request.hash_cuts[-1].path == "context.history"
        recorded = request.model_dump(mode="json")
        read_back = ModelRequest.model_validate(recorded)
        assert read_back.hash_cuts == request.hash_cuts
        assert request.request_hash() == read_back.request_hash() == hash_v2(recorded)
        if block.text:
            cut = request.hash_cuts[0]
            assert cut.path == "input"
            assert request.input[cut.start : cut.end] == block.text


def test_version_2_hashes_cover_the_cut_text_and_the_offsets() -> None:
    texts, lists = grown(random.Random(7), 10)
    request = request_showing(texts[-1], lists[-1], 7).sharing(texts[-1], "history", cut=True)
    recorded = request.model_dump(mode="json")
    digest = hash_v2(recorded)
    cut = recorded["hash_cuts"][0]
    changed_text = {**recorded, "input": recorded["input"][: cut["start"]] + "X"}
    changed_text["input"] += recorded["input"][cut["start"] + 1 :]
    moved = {
        **recorded,
        "hash_cuts": [{**cut, "start": cut["start"] - 1}, recorded["hash_cuts"][1]],
    }
    other_item = {**recorded, "context": {**recorded["context"], "history": []}}
    for changed in (changed_text, moved, other_item):
        assert hash_v2(changed) != digest
        assert ModelRequest.model_validate(changed).request_hash() != digest


def test_a_cut_outside_its_text_is_refused_by_both() -> None:
    request = ModelRequest(
        address="a",
        agent="a",
        purpose="p",
        model="m",
        system="s",
        input="short",
        hash_cuts=[HashCut(path="input", start=2, end=9)],
    )
    with pytest.raises(ValueError):
        request.request_hash()
    with pytest.raises(ValueError):
        hash_v2(request.model_dump(mode="json"))
    missing = request.model_copy(update={"hash_cuts": [HashCut(path="context.history")]})
    with pytest.raises(ValueError):
        missing.request_hash()
    with pytest.raises(ValueError):
        hash_v2(missing.model_dump(mode="json"))
