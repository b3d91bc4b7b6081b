"""The world transcript is Markdown a reader renders as it reads as text: every event its own
list item under its tick's heading, never two events run into one paragraph, and what agents
wrote shown literally."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from maai.domain import experiments
from maai.domain.world.events import ActionResolved, OrderDrawn
from maai.projections.history import history_from_events
from maai.projections.world import VIEWS
from tests.projections.world.recording import golden_history


def _blocks(text: str) -> list[Token]:
    return MarkdownIt("commonmark").parse(text)


def test_no_two_lines_of_the_golden_transcript_merge_when_rendered() -> None:
    text = VIEWS.transcript(golden_history())
    tokens = _blocks(text)
    inline = [t for t in tokens if t.type == "inline"]
    merged = [t.content for t in inline if any(c.type == "softbreak" for c in t.children or [])]
    assert merged == []
    # Each non-blank line is one rendered block of its own: a heading, a paragraph or an item.
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(inline) == len(lines)
    headings = [t for t in tokens if t.type == "heading_open"]
    assert len(headings) == 1 + sum(line.startswith("## Tick ") for line in lines)
    items = [t for t in tokens if t.type == "list_item_open"]
    assert len(items) > 20


def test_what_an_agent_wrote_is_shown_literally_on_its_line() -> None:
    said = 'Carla said: "**all** in_a_row\n# not a heading\n- nor an item <b>x</b>"'
    events = [
        OrderDrawn(tick=0, label="order/0", order=["Carla"]),
        ActionResolved(
            tick=0,
            position=0,
            agent="Carla",
            kind="speak",
            outcome="applied",
            location="Hall",
            text=said,
            description=said,
            witnesses=["Carla"],
        ),
    ]
    text = VIEWS.transcript(history_from_events(events, experiment=experiments.get("world")))
    tokens = _blocks(text)
    items = [t for t in tokens if t.type == "list_item_open"]
    assert len(items) == 1
    inline = [t for t in tokens if t.type == "inline"][-1]
    assert [c.type for c in inline.children or []] == ["text"]  # no emphasis, HTML or break
    rendered = inline.children[0].content  # type: ignore[index]
    assert '"**all** in_a_row # not a heading - nor an item <b>x</b>"' in rendered
    assert rendered.startswith("[Hall] Carla said")
