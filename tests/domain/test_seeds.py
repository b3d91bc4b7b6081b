"""Study seeds: recomputable, distinct per cell and replicate, and independent of how the
cell's factors are ordered."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maai.domain.seeds import derive_seed


def test_the_rule_is_the_documented_one() -> None:
    cell = {"u_value": 0.75, "agents[*].model": "simulated"}
    text = json.dumps(
        {"study_seed": 7, "cell": cell, "replicate": 3},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    expected = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
    assert derive_seed(7, cell, 3) == expected


def test_factor_order_does_not_matter() -> None:
    assert derive_seed(1, {"a": 1, "b": "x"}, 1) == derive_seed(1, {"b": "x", "a": 1}, 1)


@given(
    st.integers(0, 2**40),
    st.dictionaries(st.sampled_from(["u_value", "language", "model"]), st.integers(0, 9)),
    st.integers(1, 50),
)
def test_seeds_differ_by_cell_replicate_and_study(
    seed: int, cell: dict[str, int], rep: int
) -> None:
    base = derive_seed(seed, cell, rep)
    assert 0 <= base < 2**63
    assert derive_seed(seed, cell, rep + 1) != base
    assert derive_seed(seed + 1, cell, rep) != base
    assert derive_seed(seed, {**cell, "extra": 1}, rep) != base


def test_replicates_count_from_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        derive_seed(1, {}, 0)
