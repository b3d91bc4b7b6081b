"""What the world renders and derives from a dict of players does not depend on the order the
dict came in (a model's answer, a backend's JSONB): the announcement's text and its checked
differences are built in canonical (sorted) order."""

from __future__ import annotations

from maai.domain.world import pgg
from maai.domain.world.apply import describe

ANNOUNCED = {"Mona": 12.5, "Al": 10.0, "Beatrice": 7.0}
COMPUTED = {"Mona": 11.0, "Al": 9.0, "Beatrice": 7.0, "Zed": 4.0}


def test_the_announcement_reads_the_same_whatever_the_order_of_its_payoffs() -> None:
    reordered = dict(reversed(list(ANNOUNCED.items())))
    text = describe("Mod", {"action": "announce", "payoffs": ANNOUNCED}, "plaza")
    assert text == describe("Mod", {"action": "announce", "payoffs": reordered}, "plaza")
    assert text == "Mod announced the payoffs: Al 10, Beatrice 7, Mona 12.5"


def test_the_differences_are_listed_in_player_order_whatever_the_dicts_order() -> None:
    differences = pgg.announcement_differences(ANNOUNCED, COMPUTED)
    reordered = dict(reversed(list(COMPUTED.items())))
    assert pgg.announcement_differences(ANNOUNCED, reordered) == differences
    assert [d.split(":")[0] for d in differences] == ["Al", "Mona", "Zed"]
