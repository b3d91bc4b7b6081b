"""A growing public history is rendered and serialized once per item (domain.memo,
maai.canonical.FrozenJson/FrozenJsonList), with results identical to doing it afresh."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest

from maai.canonical import FrozenJson, FrozenJsonList, canonical_json, canonical_json_shared
from maai.domain.calls import ModelRequest
from maai.domain.memo import GrowingMemo


def random_json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([0, 1, -3, 2**40])
    if kind == 1:
        return rng.choice([1.0, 0.5, -2.25, 1e-9])
    if kind == 2:
        return rng.choice(["", "a", 'quote " and \\ slash', "ünïcode ✓", "line\nbreak"])
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return {
            f"k{rng.randrange(5)}": random_json(rng, depth + 1) for _ in range(rng.randrange(4))
        }
    if kind == 5:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    items = [
        FrozenJson(round=i, text=random_json(rng, 3), kind="statement")
        for i in range(rng.randrange(4))
    ]
    return FrozenJsonList.extended(FrozenJsonList.extended(None, items[:1]), items[1:])


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


@pytest.mark.parametrize("seed", range(60))
def test_shared_serialization_is_byte_identical(seed: int) -> None:
    rng = random.Random(seed)
    value = {"context": random_json(rng), "history": random_json(rng), "x": random_json(rng)}
    assert canonical_json_shared(value) == canonical_json(plain(value)) == canonical_json(value)


def test_a_request_hash_does_not_depend_on_sharing() -> None:
    items = [FrozenJson(kind="statement", round=1, speaker=f"a{i}", text="t") for i in range(9)]
    shared = FrozenJsonList.extended(FrozenJsonList.extended(None, items[:4]), items[4:])
    fields = dict(address="p2/x", agent="a", purpose="statement", model="m", system="s", input="i")
    one = ModelRequest(**fields, context={"history": shared, "round": 1})
    other = ModelRequest(**fields, context={"history": plain(list(shared)), "round": 1})
    assert one.request_hash() == other.request_hash()
    assert one.model_dump(mode="json") == other.model_dump(mode="json")


def test_frozen_values_cannot_change_and_copy_as_themselves() -> None:
    item = FrozenJson(a=1)
    items = FrozenJsonList.extended(None, [item])
    for change in (
        lambda: item.__setitem__("a", 2),
        lambda: item.update(b=1),
        lambda: item.pop("a"),
        lambda: items.append(1),
        lambda: items.__setitem__(0, 1),
        lambda: items.extend([1]),
    ):
        with pytest.raises(TypeError, match="cannot be changed"):
            change()
    assert item == {"a": 1} and items == [{"a": 1}]
    assert copy.deepcopy(items) is items and copy.copy(item) is item
    assert pickle.loads(pickle.dumps(items)) == [{"a": 1}]


def test_growing_memo_gives_what_computing_afresh_gives() -> None:
    calls: list[int] = []

    def lines(n: int) -> list[str]:
        calls.append(n)
        return [f"line {n}", f"more {n}"] if n % 2 else [f"line {n}"]

    memo: GrowingMemo[int, str] = GrowingMemo(lines, keep=2)
    history: tuple[int, ...] = ()
    for n in range(30):
        history = (*history, n)
        assert memo(history) == [x for i in history for x in lines(i)]
    # Each item was rendered once by the memo (the comparison above renders them again).
    assert calls.count(29) == 2
    # A history that branches off an earlier one is computed afresh, correctly.
    branch = (*history[:5], 99)
    assert memo(branch) == [x for i in branch for x in lines(i)]
    assert memo(history) == [x for i in history for x in lines(i)]


@pytest.mark.parametrize("seed", range(30))
def test_a_pass_that_remembers_shared_dicts_writes_the_same_text(seed: int) -> None:
    rng = random.Random(seed)
    shared = [{"a": rng.randrange(3), "b": [1, 2.0]} for _ in range(5)]
    memo: dict[int, tuple[object, str]] = {}
    for _ in range(3):
        value = {"h": [rng.choice(shared) for _ in range(rng.randrange(20))], "x": random_json(rng)}
        assert canonical_json_shared(value, memo) == canonical_json(plain(value))


def test_a_recorded_request_is_stored_as_model_dump_would_write_it() -> None:
    from fractions import Fraction

    from maai.domain.events import ModelCallRequested
    from maai.domain.registry import encode

    items = [FrozenJson(kind="poll", round=2, speaker=None, text="t") for _ in range(9)]
    fields = dict(address="p2/x", agent="a", purpose="poll", model="m", system="s", input="i")
    for context in (
        {"history": FrozenJsonList.extended(None, items), "round": 2, "ratio": 0.5},
        {"odd": Fraction(1, 3)},  # not plain JSON: model_dump converts it
    ):
        request = ModelRequest(**fields, context=context)
        event = ModelCallRequested(request=request, request_hash=request.request_hash())
        _, _, payload, agent = encode(event)
        assert agent == "a"
        assert canonical_json_shared(payload) == canonical_json(event.model_dump(mode="json"))


def test_a_changed_copy_of_a_request_is_hashed_afresh() -> None:
    fields = dict(address="p2/x", agent="a", purpose="poll", model="m", system="s", input="i")
    request = ModelRequest(**fields)
    before = request.request_hash()
    changed = request.model_copy(update={"input": "other"})
    assert changed.request_hash() == ModelRequest(**{**fields, "input": "other"}).request_hash()
    assert changed.request_hash() != before
    assert request.model_copy().request_hash() == before
