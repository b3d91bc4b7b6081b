"""The simulated participants read the group from a shared history once per history object
(``simulated.group.group_view``): the same view as reading it afresh, for every reader."""

from __future__ import annotations

import random

from maai.canonical import FrozenJson, FrozenJsonList
from maai.domain.frohlich.simulated.facts import history
from maai.domain.frohlich.simulated.group import group_view, read_group

SAID = [
    "I support (a): the floor matters most.",
    "I now prefer (c) with a floor of $12,000.",
    "Let us take (d) with a range of $15,000.",
    "Honestly (b) is best for everyone.",
    "I am not sure yet.",
]


def test_the_view_read_once_is_the_view_read_afresh() -> None:
    rng = random.Random(3)
    items: FrozenJsonList | None = None
    names = ["Ada", "Ben", "Cy", "Di"]
    for step in range(40):
        if rng.random() < 0.2:
            item = FrozenJson(
                kind="tally", speaker=None, round=step, text="(c) $13,000: 3 votes; (a): 2 votes"
            )
        else:
            item = FrozenJson(
                kind="statement", speaker=rng.choice(names), round=step, text=rng.choice(SAID)
            )
        items = FrozenJsonList.extended(items, [item])
        ctx = {"history": items}
        for me in rng.sample(names, 3):
            view = group_view(me, ctx)
            assert view == read_group(me, history(ctx))
            view.positions.clear()  # a reader's copy: the next reader's view is whole
        assert group_view("Ada", ctx) == read_group("Ada", history(ctx))
    assert group_view("Ada", {"history": list(items or ())}) == read_group(
        "Ada", history({"history": items})
    )
