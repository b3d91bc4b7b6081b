"""``render.fill`` writes exactly what ``PROMPTS.render`` (``string.Template``) writes, for
every world template and for templates with escapes, braces and ill-formed placeholders."""

from __future__ import annotations

from string import Template

import pytest

from maai.domain.world import render
from maai.domain.world.prompts import PROMPTS

# Values that look like placeholders themselves: they must come out as they are.
TRICKY = "$x ${y} $$ and 100% {z}"


def placeholders(template: Template) -> set[str]:
    return {
        m.group("named") or m.group("braced")
        for m in template.pattern.finditer(template.template)
        if m.group("named") or m.group("braced")
    }


@pytest.mark.parametrize("name", PROMPTS.names("en"))
def test_every_template_fills_as_string_template_does(name: str) -> None:
    names = placeholders(PROMPTS.template(name, "en"))
    values: dict[str, object] = {n: f"<{n} {TRICKY}>" for n in names}
    values["not_in_the_template"] = 7
    assert render.fill(name, "en", **values) == PROMPTS.render(name, "en", **values)
    if names:  # a missing value is an error, never a blank
        missing = sorted(names)[0]
        with pytest.raises(KeyError):
            render.fill(name, "en", **{k: v for k, v in values.items() if k != missing})


@pytest.mark.parametrize(
    "text",
    ["plain", "$a costs $$5", "${a}b and $a_1.", "$$$a$$", "a $ b", "end $", "$1 a", ""],
)
def test_split_templates_join_as_substitute_does(text: str) -> None:
    template = Template(text)
    pieces = render.split_template(template)
    values = {"a": "A$", "a_1": 1}
    try:
        expected = template.substitute(values)
    except ValueError:  # an ill-formed placeholder: left to string.Template
        assert pieces is None
        return
    assert pieces is not None
    literals, names = pieces
    joined = literals[0] + "".join(
        str(values[n]) + literal for n, literal in zip(names, literals[1:], strict=True)
    )
    assert joined == expected


def test_a_changed_template_is_filled_as_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Verify's divergence check changes a template in the process: the split must follow.
    before = render.fill("nobody", "en")
    original = PROMPTS.template

    def changed(name: str, language: str = "en") -> Template:
        found = original(name, language)
        return Template(found.template + " (changed)") if name == "nobody" else found

    monkeypatch.setattr(PROMPTS, "template", changed)
    assert render.fill("nobody", "en") == before + " (changed)"
