"""Run seeds derived for a study: one per cell and replicate.

A run's draws depend only on its seed and each draw's label (``maai.domain.random_streams``),
never on the rest of its config: two runs of different conditions given the same seed draw
the same multipliers, classes and speaking orders, and so are not independent samples. A
study therefore gives each run its own seed, derived from the study's seed, the run's cell
(its factor values) and its replicate number, by a rule anyone can recompute:

    seed = first 63 bits of sha256(canonical JSON of
           {"study_seed": S, "cell": {factor path: value, ...}, "replicate": r})

``maai run --seed N`` stays what it was: the seed as given, for reproducing one run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from maai.canonical import canonical_json

SEED_BITS = 63


def derive_seed(study_seed: int, cell: Mapping[str, Any], replicate: int) -> int:
    """The seed of replicate ``replicate`` (from 1) of ``cell`` in a study seeded ``study_seed``.
    The same inputs always give the same seed; any change to one gives an unrelated one."""
    if replicate < 1:
        raise ValueError(f"replicates count from 1, got {replicate}")
    text = canonical_json({"study_seed": study_seed, "cell": dict(cell), "replicate": replicate})
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)
