"""The public history's text is made, escaped and hashed once per item
(``maai.canonical.SharedText``, ``domain.memo.SharedLines``), and a request showing it is
hashed and stored byte for byte as before."""

from __future__ import annotations

import copy
import hashlib
import pickle
import random

import pytest

from maai.canonical import (
    FrozenJson,
    FrozenJsonList,
    SharedText,
    canonical_json,
    canonical_json_shared,
    json_string,
)
from maai.domain.calls import ModelRequest
from maai.domain.events import ModelCallRequested
from maai.domain.memo import SharedLines
from maai.domain.registry import encode

PIECES = ["plain words", 'a "quote"', "back\\slash", "ünïcode ✓ 中文", "tab\there", "\x01ctl", ""]


def grown(rng: random.Random, steps: int) -> tuple[list[SharedText], list[FrozenJsonList]]:
    """Texts and item lists made as a run makes them: each extends the one before."""
    lines: SharedLines | None = None
    items: FrozenJsonList | None = None
    texts, lists = [], []
    for step in range(steps):
        new = [rng.choice(PIECES) + str(step) for _ in range(rng.randrange(3))]
        lines = SharedLines.extended(lines, new)
        items = FrozenJsonList.extended(
            items, [FrozenJson(kind="statement", round=step, text=line) for line in new]
        )
        assert lines.shared.text == "\n".join(lines)
        texts.append(lines.shared)
        lists.append(items)
    return texts, lists


def request_showing(block: SharedText, items: FrozenJsonList, seed: int) -> ModelRequest:
    rng = random.Random(seed)
    before = "You are Ada ✓.\n" + rng.choice(PIECES) + "\n\n---\n\nThe discussion so far:\n"
    after = "\n\nYour turn: " + rng.choice(PIECES)
    return ModelRequest(
        address="p2/r2/Ada/statement",
        agent="Ada",
        purpose="statement",
        model="simulated",
        system="system text",
        input=before + block.text + after,
        temperature=0.7,
        context={"history": items, "round": 2, "step": "2.1"},
    )


def test_shared_texts_keep_their_json_and_digest() -> None:
    texts, _ = grown(random.Random(1), 30)
    for text in texts:
        assert text.json_body == json_string(text.text)[1:-1]
        assert text.sha256() == hashlib.sha256(text.text.encode()).hexdigest()
        assert copy.deepcopy(text) is text
        again = pickle.loads(pickle.dumps(text))
        assert (again.text, again.json_body, again.sha256()) == (
            text.text,
            text.json_body,
            text.sha256(),
        )
        assert again.extended("x").sha256() == text.extended("x").sha256()


@pytest.mark.parametrize("seed", range(10))
def test_a_request_sharing_its_history_is_hashed_and_stored_as_before(seed: int) -> None:
    texts, lists = grown(random.Random(seed), 8)
    for block, items in zip(texts, lists, strict=True):
        plain = request_showing(block, items, seed)
        shared = request_showing(block, items, seed).sharing(block, "history", cut=False)
        assert shared.hash_cuts is None and "hash_cuts" not in shared.model_dump()
        whole = canonical_json(plain.model_dump(mode="json"))
        assert shared.request_hash() == hashlib.sha256(whole.encode()).hexdigest()
        assert shared.request_hash() == plain.request_hash()
        event = ModelCallRequested(request=shared, request_hash=shared.request_hash())
        assert canonical_json_shared(encode(event)[2]) == canonical_json(event.model_dump())


@pytest.mark.parametrize("seed", range(10))
def test_texts_written_when_asked_for_in_any_order_are_the_texts_written_at_once(
    seed: int,
) -> None:
    # A growing history's JSON (item lists) and escaped text (shared texts) are written only
    # when asked for, from the last one written: whichever are asked, in whatever order
    # (verify asks for none, the engine for each in turn), each is the text written afresh.
    rng = random.Random(seed)
    texts, lists = grown(rng, 40)
    asked = rng.sample(range(len(texts)), k=rng.randrange(len(texts)))
    for i in asked:
        assert lists[i].canonical() == canonical_json(list(lists[i]))
        assert texts[i].json_body == json_string(texts[i].text)[1:-1]
    for i in range(len(texts)):
        assert lists[i].canonical() == canonical_json(list(lists[i]))
        assert texts[i].json_body == json_string(texts[i].text)[1:-1]
