"""The shared templates' guards (projections/templating.py): what a value becomes on a page
of ``maai report``, ``maai study report`` and ``maai view``."""

from __future__ import annotations

import pytest

from maai.projections.markup import Markup, facts, flag, table
from maai.projections.templating import environment


def test_cells_are_written_as_a_reader_reads_them() -> None:
    row = (None, True, False, {"agent": "Dmitri", "n": 1}, ["a", "b"], 2.5, "<b>x</b> & 'y'")
    cells = table(["a", "b", "c", "d", "e", "f", "g"], [row])
    written = cells[cells.index("<tbody>") :]
    assert written == (
        "<tbody><tr><td></td><td>yes</td><td>no</td>"
        "<td>{&quot;agent&quot;: &quot;Dmitri&quot;, &quot;n&quot;: 1}</td>"
        "<td>[&quot;a&quot;, &quot;b&quot;]</td><td>2.5</td>"
        "<td>&lt;b&gt;x&lt;/b&gt; &amp; &#x27;y&#x27;</td></tr></tbody></table>"
    )


def test_markup_goes_in_as_it_is_and_text_escaped() -> None:
    listed = facts([("said", flag("<wrong>")), ("<label>", "plain")])
    assert listed == (
        '<dl class="facts"><dt>said</dt><dd><span class="flag">&lt;wrong&gt;</span></dd>'
        "<dt>&lt;label&gt;</dt><dd>plain</dd></dl>"
    )
    assert isinstance(listed, Markup)


@pytest.mark.parametrize("value", [{"a": 1}, ["a"], True, object(), print])
def test_a_python_object_never_reaches_a_page(value: object) -> None:
    page = environment().from_string("<p>{{ value }}</p>")
    with pytest.raises(TypeError, match="would reach the page unformatted"):
        page.render(value=value)


def test_none_is_written_as_nothing() -> None:
    assert environment().from_string("<p>{{ value }}</p>").render(value=None) == "<p></p>"
