"""Rendering the game's prompts from the state: every text comes from a template
(``prompts/<language>/``), filled with what the step may show (docs/collaboration.md §3)."""

from __future__ import annotations

from maai.domain.collaboration.config import CollaborationConfig, OptionConfig
from maai.domain.collaboration.prompts import PROMPTS
from maai.domain.collaboration.state import State


def signed(points: int) -> str:
    return f"+{points}" if points > 0 else str(points).replace("-", "−")


def options_text(options: list[OptionConfig], language: str) -> str:
    lines = []
    for o in options:
        if o.kind == "collaborative":
            assert o.upside is not None and o.downside is not None
            line = PROMPTS.render(
                "option_collaborative",
                language,
                name=o.name,
                upside=signed(o.upside),
                downside=signed(o.downside),
            )
        else:
            assert o.points is not None
            line = PROMPTS.render(
                "option_individual", language, name=o.name, points=signed(o.points)
            )
        lines.append(line)
    return "\n".join(lines)


def company(config: CollaborationConfig, name: str) -> str:
    return config.agent(name).company or f"{name}'s company"


def context(config: CollaborationConfig, agent: str) -> str:
    language = config.language
    options = options_text(config.options_of(agent), language)
    partner = config.partner_of(agent)
    if partner is None:
        return PROMPTS.render("context_baseline", language, options=options)
    return PROMPTS.render(
        "context",
        language,
        partner=partner,
        partner_company=company(config, partner),
        options=options,
    )


def conversation(state: State, upto: int | None = None) -> str:
    """The messages so far (or the first ``upto``), numbered, as both agents see them."""
    config = state.config
    assert config is not None
    language = config.language
    lines = []
    for message in state.messages:
        if upto is not None and message.index > upto:
            break
        if message.text is None:
            lines.append(
                PROMPTS.render(
                    "message_missing", language, index=message.index, speaker=message.agent
                )
            )
        else:
            lines.append(
                PROMPTS.render(
                    "message_line",
                    language,
                    index=message.index,
                    speaker=message.agent,
                    text=message.text,
                )
            )
    return "\n".join(lines) or PROMPTS.render("no_conversation", language)


def system(config: CollaborationConfig, agent: str) -> str:
    return PROMPTS.render("system", config.language, name=agent, company=company(config, agent))
