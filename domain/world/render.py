"""What an agent reads (docs/world.md §4, information sets): its own bio, private bio,
directives, plan and memories; of the others only the names and public bios of those present,
and what it witnessed. Everything comes from templates in ``prompts/en``."""

from __future__ import annotations

from functools import lru_cache, partial
from string import Template
from typing import Any

from maai.domain.embeddings import decode_vector, embedding_address
from maai.domain.world import memory
from maai.domain.world.apply import whose_turn
from maai.domain.world.config import WorldConfig
from maai.domain.world.events import ActionResolved, MemoryItem, PlanChanged
from maai.domain.world.prompts import PROMPTS
from maai.domain.world.state import NO_MEMORIES, State


def _config(state: State) -> WorldConfig:
    assert state.config is not None
    return state.config


def _r(state: State, template: str, /, **values: Any) -> str:
    return fill(template, _config(state).language, **values)


def fill(template: str, language: str, /, **values: Any) -> str:
    """``PROMPTS.render(template, language, **values)``, the same text to the character,
    from the template split once at its placeholders (``split_template``): an act prompt
    renders a dozen templates, and ``string.Template`` finds the placeholders anew with a
    regular expression and a callback each time. The template is asked of ``PROMPTS`` each
    time (its own cache), and the split is remembered per template object, so a template
    that changes (as verify's divergence tests change one) is split anew."""
    parsed = PROMPTS.template(template, language)
    pieces = _pieces(parsed)
    if pieces is None:
        return parsed.substitute({k: str(v) for k, v in values.items()})
    literals, names = pieces
    parts = [literals[0]]
    for name, literal in zip(names, literals[1:], strict=True):
        parts.append(str(values[name]))  # a missing value is an error, as in ``render``
        parts.append(literal)
    return "".join(parts)


@lru_cache(maxsize=1024)
def _pieces(parsed: Template) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    # Keyed by the object (a Template compares by identity): PROMPTS keeps its templates.
    return split_template(parsed)


def split_template(parsed: Template) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """A template's text between its placeholders and the placeholders' names, read with
    ``string.Template``'s own pattern (``$$`` is a literal ``$``); ``None`` for a template
    with an ill-formed placeholder, left to ``string.Template`` to report."""
    text = parsed.template
    literals: list[str] = []
    names: list[str] = []
    literal = ""
    start = 0
    for match in parsed.pattern.finditer(text):
        literal += text[start : match.start()]
        start = match.end()
        if match.group("invalid") is not None:
            return None
        if match.group("escaped") is not None:
            literal += parsed.delimiter
            continue
        literals.append(literal)
        names.append(match.group("named") or match.group("braced"))
        literal = ""
    literals.append(literal + text[start:])
    return tuple(literals), tuple(names)


def private_bio(config: WorldConfig, agent: str) -> str:
    spec = config.agent(agent)
    text = spec.private_bio
    if config.game is not None and spec.role == "player":
        text = f"{text} You have {config.endowment(agent)} points in each round.".strip()
        if spec.priming:
            text = f"{text} {spec.priming}"
    return text


def system(state: State, agent: str) -> str:
    """The agent's system prompt: from the config alone, so rendered once per run."""
    key = ("system", agent)
    text = state.renders.get(key)
    if text is None:
        text = state.renders[key] = _system(state, agent)
    return text


def _system(state: State, agent: str) -> str:
    config = _config(state)
    spec = config.agent(agent)
    directives = (
        _r(state, "directives", directives="\n".join(f"- {d}" for d in spec.directives)) + "\n"
        if spec.directives
        else ""
    )
    return _r(
        state,
        "system",
        name=agent,
        world=config.world.name,
        world_description=config.world.description,
        public_bio=spec.public_bio,
        private_bio=private_bio(config, agent),
        directives=directives,
        rules=_rules(state, agent),
        minutes=config.world.minutes_per_tick,
    )


def _rules(state: State, agent: str) -> str:
    config = _config(state)
    game = config.game
    role = config.agent(agent).role
    if game is None or role is None:
        return ""
    common = dict(
        booth=game.contribution_room,
        hall=game.game_room,
        multiplier=f"{game.multiplier:g}",
        rounds=game.rounds,
        players=", ".join(config.players),
        n=len(config.players),
    )
    if role == "player":
        return _r(
            state,
            "rules_player",
            moderator=config.moderator or "",
            endowment=config.endowment(agent),
            **common,
        )
    endowments = ", ".join(f"{p} {config.endowment(p)}" for p in config.players)
    return _r(state, "rules_moderator", endowments=endowments, **common)


def observations(state: State, agent: str, tick: int) -> list[ActionResolved]:
    """What ``agent`` witnessed of the others' actions in ``tick`` (§3): their applied
    actions, and a missing contribution in its presence.

    Of a closed tick (every one before ``state.tick``), kept for the run (``State.renders``)
    with the tuple of the tick's actions it was read from: a closed tick's actions never
    change, and the agent's loop reads them several times per walk (importance, the act
    prompt, its view), while its memo token is renewed by each of its events. A state of
    another history (a test's branch from a common state) holds other actions, and reads
    them anew."""
    if tick >= state.tick:
        return _observed(state, agent, tick)
    actions = state.actions.get(tick, ())
    key = ("observations", agent, tick)
    kept = state.renders.get(key)
    if kept is None or kept[0] is not actions:
        kept = state.renders[key] = (actions, tuple(_observed(state, agent, tick)))
    return list(kept[1])


def _observed(state: State, agent: str, tick: int) -> list[ActionResolved]:
    return [
        a
        for a in state.actions.get(tick, ())
        if a.outcome != "refused" and a.agent != agent and agent in a.witnesses
    ]


def notices(state: State, agent: str, tick: int) -> list[str]:
    """Why ``agent``'s own action of ``tick`` was refused or missing (told next tick, §2)."""
    return [
        a.reason or ""
        for a in state.actions.get(tick, ())
        if a.agent == agent and a.outcome != "applied"
    ]


def ranked(state: State, agent: str, tick: int) -> tuple[list[MemoryItem], str]:
    """The memories retrieval ranks for ``agent`` in ``tick``, those from before the last
    tick (the last tick's are shown as new observations), and the query they are ranked
    against: the current plan, or where the agent is."""
    older = [m for m in state.memories.get(agent, ()) if m.created_tick < tick - 1]
    return older, _query(state, agent)


def _query(state: State, agent: str) -> str:
    plan = state.plan_of(agent)
    return f"{plan.description} {plan.location}" if plan else state.positions[agent]


def _older_batches(state: State, agent: str, tick: int) -> list[memory.MemoryBatch]:
    """``ranked``'s memories as the batches of the agent's memory stream that hold them (a
    batch reaching into the last tick cut to what is older), in O(batches)."""
    batches: list[memory.MemoryBatch] = []
    for batch in state.memories.get(agent, NO_MEMORIES).batches():
        derived = batch.derived
        made = derived.get("ticks")
        if made is None:
            made = derived["ticks"] = (
                min(m.created_tick for m in batch.items),
                max(m.created_tick for m in batch.items),
            )
        if made[1] < tick - 1:
            batches.append(batch)
        elif made[0] < tick - 1:
            batches.append(
                memory.LooseBatch(tuple(m for m in batch.items if m.created_tick < tick - 1))
            )
    return batches


def recalled(state: State, agent: str, tick: int) -> list[MemoryItem]:
    """The memories shown, ranked against the current plan: with the recorded embeddings
    when the config has ``embeddings:``, else with the local vector."""
    config = _config(state)
    if config.embeddings is None or config.retrieval.relevance <= 0:
        return memory.retrieve_batches(
            _older_batches(state, agent, tick), _query(state, agent), tick, config.retrieval
        )
    older, query = ranked(state, agent, tick)
    return memory.retrieve(
        older,
        query,
        tick,
        config.retrieval,
        partial(recorded_vector, state),
        partial(recorded_embedding, state),
    )


def recorded_embedding(state: State, text: str) -> str:
    """The recorded answer embedding ``text`` (the vector, encoded); the walk asks for every
    one it ranks before it renders the prompt, so a missing one is a bug, not a gap to fill
    with a default."""
    answer = state.answer(embedding_address(text))
    if answer is None:
        raise LookupError(f"no recorded embedding of {text!r}")
    return answer.text


def recorded_vector(state: State, text: str) -> tuple[float, ...]:
    """The embedding of ``text`` as recorded (``recorded_embedding``, decoded)."""
    return decode_vector(recorded_embedding(state, text))


def witnessed_contributions(state: State, agent: str) -> dict[str, int]:
    r = state.round
    if r is None:
        return {}
    start = state.rounds[r].tick
    seen: dict[str, int] = {}
    for t in range(start, state.tick + 1):
        for a in state.actions.get(t, ()):
            if agent not in a.witnesses:
                continue
            if a.kind == "contribute" and a.outcome == "applied":
                seen[a.agent] = a.amount or 0
            elif a.kind == "missing" and a.agent != agent:  # a missing contribution: 0
                seen[a.agent] = 0
    return seen


def tick_input(state: State, agent: str, view: Any, feedback: str | None) -> str:
    config = _config(state)
    t = state.tick
    where = state.positions[agent]
    present = _present(state, tuple(a for a in state.present(where) if a != agent))
    plan = state.plan_of(agent)
    # Its own plans after the current one (§4); not shown before plan lists.
    queued = state.plans.get(agent, ())[1:] if config.plan_lists else ()
    seen = observations(state, agent, t - 1)
    told = notices(state, agent, t - 1)
    recalled_now = recalled(state, agent, t)
    text = _r(
        state,
        "tick",
        clock=config.world.clock(t),
        tick=t,
        location=where,
        location_description=config.world.location(where).description,
        present=present,
        plan=_plan_text(state, plan) if plan else _r(state, "no_plan"),
        queued=_queued_text(state, queued) if queued else "",
        observations="\n".join(f"- {a.description}" for a in seen) or _r(state, "nothing"),
        notices=_r(state, "notices", notices="\n".join(f"- {n}" for n in told)) if told else "",
        memories=(
            _r(state, "memories", memories="\n".join(f"- {m.description}" for m in recalled_now))
            if recalled_now
            else ""
        ),
        game=_game(state, agent),
        places=_places(state, agent, where),
    )
    text += "\n\n" + _format(state, agent, view)
    if feedback:
        text += "\n\n" + _r(state, "feedback", reason=feedback)
    return text


def _present(state: State, others: tuple[str, ...]) -> str:
    """Who else is present, with their public bios: from the config alone, kept per run by
    the names (``State.renders``); a crowded place is the same crowd for ticks."""
    key = ("present", others)
    text = state.renders.get(key)
    if text is None:
        config = _config(state)
        text = state.renders[key] = "; ".join(
            _r(state, "present_line", name=a, bio=config.agent(a).public_bio) for a in others
        ) or _r(state, "nobody")
    return text


def _places(state: State, agent: str, where: str) -> str:
    """The places ``agent`` may go from ``where``: from the config alone (``State.renders``)."""
    key = ("places", agent, where)
    text = state.renders.get(key)
    if text is None:
        config = _config(state)
        text = state.renders[key] = ", ".join(
            loc.name for loc in config.world.locations if loc.admits(agent) and loc.name != where
        )
    return text


def _plan_text(state: State, plan: Any) -> str:
    left = plan.max_ticks - (state.tick - plan.tick)
    return _r(
        state,
        "plan_line",
        description=plan.description,
        location=plan.location,
        stop_condition=plan.stop_condition or "-",
        left=left,
    )


def _queued_text(state: State, queued: tuple[PlanChanged, ...]) -> str:
    lines = [
        _r(
            state,
            "queued_line",
            description=p.description,
            location=p.location,
            stop_condition=p.stop_condition or "-",
            max_ticks=p.max_ticks,
        )
        for p in queued
    ]
    return _r(state, "queued", plans="\n".join(lines))


def _game(state: State, agent: str) -> str:
    config = _config(state)
    game = config.game
    role = config.agent(agent).role
    r = state.round
    if game is None or role is None or r is None:
        return ""
    turn = whose_turn(state)
    if turn == agent:
        turn_text = _r(state, "your_turn")
    elif turn is not None:
        turn_text = _r(state, "turn_of", player=turn)
    elif len(state.contributions.get(r, {})) == len(config.players):
        turn_text = _r(state, "turn_none")
    else:
        turn_text = _r(state, "turn_waiting", booth=game.contribution_room)
    order = ", ".join(state.rounds[r].order)
    if role == "player":
        return _r(
            state,
            "game_player",
            round=r,
            order=order,
            turn=turn_text,
            endowment=config.endowment(agent),
        )
    seen = witnessed_contributions(state, agent)
    seen_text = ", ".join(f"{p} {c}" for p, c in seen.items()) or _r(state, "nobody")
    return _r(state, "game_moderator", round=r, order=order, turn=turn_text, seen=seen_text)


def _format(state: State, agent: str, view: Any) -> str:
    """The actions an agent may take and the answer's format: from the config and the few
    facts of the view it reads, so rendered once per run for each combination of them
    (``State.renders``) instead of a dozen templates per act prompt."""
    key = (
        "format",
        view.has_plan,
        view.role,
        view.endowment,
        view.max_plans,
        view.react_asked,
    )
    text = state.renders.get(key)
    if text is None:
        text = state.renders[key] = _render_format(state, view)
    return text


def _render_format(state: State, view: Any) -> str:
    config = _config(state)
    game = config.game
    lines = [_r(state, "action_move"), _r(state, "action_speak"), _r(state, "action_wait")]
    if view.has_plan:
        lines.append(_r(state, "action_done"))
    if game is not None and view.role == "player":
        lines.append(
            _r(
                state,
                "action_contribute",
                endowment=view.endowment,
                booth=game.contribution_room,
            )
        )
    if game is not None and view.role == "moderator":
        lines.append(_r(state, "action_announce", hall=game.game_room))
    if view.max_plans is None:  # before plan lists: one 'plan'
        plan_rule, react_rule = _r(state, "plan_rule"), _r(state, "react_rule")
    else:
        plans_format = _r(state, "plans_format", max_plans=view.max_plans)
        plan_rule = _r(state, "plan_list_rule", plans_format=plans_format)
        react_rule = _r(state, "react_list_rule", plans_format=plans_format)
    return _r(
        state,
        "format",
        actions="\n".join(lines),
        plan_rule="" if view.has_plan else "\n" + plan_rule,
        react_rule="\n" + react_rule if view.react_asked else "",
    )


def importance_input(state: State, agent: str, items: list[str], feedback: str | None) -> str:
    config = _config(state)
    example = "[" + ", ".join(str(3 + i % 5) for i in range(len(items))) + "]"
    text = _r(
        state,
        "importance",
        clock=config.world.clock(state.tick),
        observations="\n".join(f"{i + 1}. {d}" for i, d in enumerate(items)),
        count=len(items),
        example=example,
    )
    if feedback:
        text += "\n\n" + _r(state, "feedback", reason=feedback)
    return text
