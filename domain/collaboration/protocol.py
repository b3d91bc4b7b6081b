"""``decide(state)``: what the collaboration game needs next, as a walk
(``maai.domain.walk``; docs/collaboration.md §2).

Step 1: both agents state an initial belief, concurrently; agent 1 also writes message 1.
Turns 2 … 2n: the agents in turn (agent 2 first) read the last message, update their belief,
predict the partner's, and reply. Step 2n+1: agent 1 updates after the last message. Then
both decide, concurrently; code computes the points. The baseline has one agent, no
messages, and a lottery partner drawn from a named random stream.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

from maai.domain.calls import EXTRACT, ModelRequest
from maai.domain.collaboration import render
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import (
    BeliefStated,
    DecisionMade,
    GameEnded,
    MessageSent,
    PartnerDrawn,
    PointsAwarded,
)
from maai.domain.collaboration.extraction import SCHEMA, SCHEMA_NAME, TASKS, judge
from maai.domain.collaboration.parsing import read_decision, read_turn
from maai.domain.collaboration.prompts import PROMPTS
from maai.domain.collaboration.rules import (
    Strategy,
    message_breaches,
    option_named,
    points,
    strategy_of,
)
from maai.domain.collaboration.state import State, evolve
from maai.domain.config import UTILITY
from maai.domain.elicit import Elicited, Question, UtilityReading, elicit
from maai.domain.events import RunCompleted
from maai.domain.extraction import schema_instructions
from maai.domain.random_streams import stream
from maai.domain.reading import Invalid, Parsed, ParseResult
from maai.domain.walk import Decision, Emit, Walk, parallel, run_walk, wait

# Purposes: what each call is for (the simulated participant reads it from the engine).
INITIAL = "initial"
TURN = "turn"
UPDATE = "update"
DECISION = "decision"

PARTNER_STREAM = "baseline/partner"


def _config(state: State) -> CollaborationConfig:
    assert state.config is not None, "run has not started"
    return state.config


def protocol(state: State) -> Walk[None]:
    if state.status == "completed":
        return
    config = _config(state)
    if config.baseline is None:
        yield from _game(state, config)
    else:
        yield from _baseline(state, config)
    yield from wait([Emit(RunCompleted())])


def decide(state: State) -> Decision:
    """Events derivable now (folded into ``Decision.state``) and the model calls to make."""
    if state.started is None:
        raise ValueError("the run has not started: record RunStarted first")
    return run_walk(state, protocol, evolve)


# --- the game -------------------------------------------------------------------------------


def _game(state: State, config: CollaborationConfig) -> Walk[None]:
    first, second = config.first, config.second
    assert second is not None
    yield from parallel(
        [_initial(state, first, with_message=True), _initial(state, second, with_message=False)]
    )
    last = 2 * config.exchanges
    for step in range(2, last + 1):
        yield from _turn(state, second if step % 2 == 0 else first, step, with_message=True)
    yield from _turn(state, first, last + 1, with_message=False)
    yield from parallel([_decision(state, first), _decision(state, second)])
    yield from _outcome(state, config)


def _baseline(state: State, config: CollaborationConfig) -> Walk[None]:
    agent = config.first
    yield from _initial(state, agent, with_message=False)
    yield from _decision(state, agent)
    assert config.baseline is not None
    if state.partner is None:
        draw = stream(state.seed, PARTNER_STREAM).random()
        p = config.baseline.p
        partner = PartnerDrawn(label=PARTNER_STREAM, p=p, draw=draw, collaborates=draw < p)
        yield from wait([Emit(partner)])
    yield from _outcome(state, config)


def _initial(state: State, agent: str, *, with_message: bool) -> Walk[None]:
    config = _config(state)
    slot = f"c/{agent}/initial"
    name = "initial_message" if with_message else "initial"
    task = partial(_task, state, agent, name, "format_" + name, {})
    got = yield from _ask(
        state, agent, INITIAL, slot, task, message=with_message, prediction=False, step=0
    )
    yield from _record_turn(state, agent, 0, got, 1 if with_message else None, config)


def _turn(state: State, agent: str, step: int, *, with_message: bool) -> Walk[None]:
    config = _config(state)
    slot = f"c/t{step}/{agent}"
    extra = {"step": step, **_belief_fields(state, agent)}
    name = "turn" if with_message else "update"
    task = partial(_task, state, agent, name, "format_" + name, extra)
    purpose = TURN if with_message else UPDATE
    got = yield from _ask(
        state, agent, purpose, slot, task, message=with_message, prediction=True, step=step
    )
    yield from _record_turn(state, agent, step, got, step if with_message else None, config)


def _record_turn(
    state: State,
    agent: str,
    step: int,
    got: Elicited,
    message_index: int | None,
    config: CollaborationConfig,
) -> Walk[None]:
    value: dict[str, Any] = got.value or {}
    needs: list[Emit] = []
    belief_key = f"belief/{agent}/{step}"
    if got.value is not None and not state.has(belief_key):
        needs.append(
            Emit(
                BeliefStated(
                    agent=agent,
                    step=step,
                    belief=value["belief"],
                    prediction=value.get("prediction"),
                    reasoning=value.get("reasoning"),
                )
            )
        )
    if message_index is not None and not state.has(f"message/{message_index}"):
        text = value.get("message") if got.value is not None else None
        breaches = message_breaches(text, _all_option_names(config)) if text else []
        needs.append(
            Emit(MessageSent(agent=agent, index=message_index, text=text, breaches=breaches))
        )
    if needs:
        yield from wait(list(needs))


def _decision(state: State, agent: str) -> Walk[None]:
    config = _config(state)
    if state.has(f"decision/{agent}"):
        return
    slot = f"c/{agent}/decision"
    task = partial(
        _task, state, agent, "decision", "format_decision", _decision_fields(state, agent)
    )
    own = [o.name for o in config.options_of(agent)]
    partner = config.partner_of(agent)
    others = [o.name for o in config.options_of(partner)] if partner else []
    question = Question(
        agent=agent,
        kind="decision",
        slot=slot,
        max_attempts=config.attempts.decision,
        build=partial(_request, state, agent, DECISION, task, _decision_context(state, agent)),
        task=task,
        parse=partial(read_decision, own=own, others=others),
        utility=_utility(state, agent, "decision"),
    )
    got = yield from elicit(state, question)
    option = option_named(config.options_of(agent), got.value["option"]) if got.value else None
    made = DecisionMade(
        agent=agent,
        option=option.name if option else None,
        strategy=strategy_of(option) if option else None,
        reasoning=(got.value or {}).get("reasoning"),
    )
    yield from wait([Emit(made)])


def _outcome(state: State, config: CollaborationConfig) -> Walk[None]:
    if state.ended is not None:
        return
    agents = [a.name for a in config.agents]
    missing = [a for a in agents if state.decisions[a].option is None]
    if missing:
        reason = "no readable decision from " + ", ".join(missing)
        yield from wait([Emit(GameEnded(outcome="incomplete", reason=reason))])
    if state.points is None:
        strategies: dict[str, Strategy] = {}
        for a in agents:
            strategy = state.decisions[a].strategy
            assert strategy is not None
            strategies[a] = strategy
        if config.baseline is not None:
            assert state.partner is not None
            strategies["partner"] = "collaborative" if state.partner.collaborates else "individual"
        awarded: dict[str, int] = {}
        for a in agents:
            option = option_named(config.options_of(a), state.decisions[a].option or "")
            assert option is not None
            partner = config.partner_of(a) or "partner"
            awarded[a] = points(option, strategies[partner])
        values = list(strategies.values())
        yield from wait(
            [
                Emit(
                    PointsAwarded(
                        points=awarded,
                        strategies=strategies,
                        mismatch=len(set(values)) > 1,
                        both_collaborative=all(s == "collaborative" for s in values),
                    )
                )
            ]
        )
    yield from wait([Emit(GameEnded(outcome="complete"))])


# --- asking ----------------------------------------------------------------------------------


def _ask(
    state: State,
    agent: str,
    purpose: str,
    slot: str,
    task: Callable[[str | None], str],
    *,
    message: bool,
    prediction: bool,
    step: int,
) -> Walk[Elicited]:
    config = _config(state)
    attempts = config.attempts.message if message else config.attempts.belief
    partner = config.partner_of(agent)
    # The partner's message this step answers (none at step 1): fixed by the protocol, never
    # by which concurrent answer happened to land first.
    last = next(
        (m for m in reversed(state.messages) if m.agent == partner and m.index < step), None
    )
    latest = state.latest_belief(agent)
    context = {
        "step": step,
        "message": message,
        "prediction": prediction,
        "belief": None if latest is None else latest.belief,
        "partner_last": None if last is None else last.text,
    }
    parse = partial(_read_turn, config, message=message, prediction=prediction)
    question = Question(
        agent=agent,
        kind=purpose,
        slot=slot,
        max_attempts=attempts,
        build=partial(_request, state, agent, purpose, task, context),
        task=task,
        parse=parse,
        utility=_utility(state, agent, purpose, message=message),
    )
    return (yield from elicit(state, question))


def _read_turn(
    config: CollaborationConfig, text: str, *, message: bool, prediction: bool
) -> ParseResult[Any]:
    result = read_turn(text, message=message, belief=True, prediction=prediction)
    if isinstance(result, Parsed) and message:
        reason = _reask_reason(config, result.value["message"])
        if reason is not None:
            return Invalid(reason)
    return result


def _reask_reason(config: CollaborationConfig, message: str) -> str | None:
    """Under ``message_rule: reask``, why a message that breaks the rules is sent back."""
    if config.message_rule != "reask":
        return None
    breaches = message_breaches(message, _all_option_names(config))
    if not breaches:
        return None
    return (
        "Your message broke the rules for messages (" + "; ".join(breaches) + "). "
        "Write it again without disclosing your belief, your prediction or an option."
    )


def _all_option_names(config: CollaborationConfig) -> list[str]:
    names = {o.name for a in config.agents for o in config.options_of(a.name)}
    return sorted(names)


def _utility(state: State, agent: str, purpose: str, *, message: bool = False) -> UtilityReading:
    config = _config(state)
    return UtilityReading(
        attempts=config.attempts.utility,
        request=partial(_utility_request, state, agent, purpose),
        judge=partial(_judge, config, agent, purpose, message),
        how_to_answer=TASKS[purpose]["how"],
    )


def _judge(
    config: CollaborationConfig, agent: str, purpose: str, message: bool, reply: str, text: str
) -> Any:
    options = [o.name for o in config.options_of(agent)]
    judged = judge(purpose, reply, text, options, message=message)
    if message and isinstance(judged, tuple) and judged[0]:
        # The numbers were read by the utility agent: the message rules still apply.
        reason = _reask_reason(config, judged[1]["message"])
        if reason is not None:
            return False, reason
    return judged


def _utility_request(
    state: State, agent: str, purpose: str, address: str, text: str
) -> ModelRequest:
    config = _config(state)
    utility = config.utility
    json_schema = utility.provider is None or utility.provider.json_schema
    fields: dict[str, Any] = {}
    instructions = "Answer with the JSON object only."
    if json_schema:
        fields = {"output_schema": SCHEMA, "schema_name": SCHEMA_NAME}
    else:
        instructions = schema_instructions(SCHEMA)
    language = config.language
    return ModelRequest(
        address=address,
        agent=UTILITY,
        purpose=EXTRACT,
        model=utility.model,
        system=PROMPTS.render("extract_system", language),
        input=PROMPTS.render(
            "extract",
            language,
            what=TASKS[purpose]["what"],
            text=text,
            schema_instructions=instructions,
        ),
        temperature=utility.temperature,
        context={"kind": purpose, "text": text, "for_agent": agent},
        **fields,
    )


def _request(
    state: State,
    agent: str,
    purpose: str,
    task: Callable[[str | None], str],
    context: dict[str, Any],
    address: str,
    attempt: int,
    feedback: str | None,
) -> ModelRequest:
    config = _config(state)
    spec = config.agent(agent)
    return ModelRequest(
        address=address,
        agent=agent,
        purpose=purpose,
        model=spec.model,
        system=render.system(config, agent),
        input=task(feedback),
        temperature=spec.temperature,
        context={**context, "attempt": attempt, "feedback": feedback},
    )


def _task(
    state: State,
    agent: str,
    template: str,
    format_template: str,
    extra: dict[str, Any],
    feedback: str | None,
) -> str:
    config = _config(state)
    language = config.language
    partner = config.partner_of(agent) or ""
    names = ", ".join(o.name for o in config.options_of(agent))
    values: dict[str, Any] = {
        "context": render.context(config, agent),
        "partner": partner,
        "rules": PROMPTS.render("message_rules", language, partner=partner) if partner else "",
        "conversation": render.conversation(state),
        "names": names,
        **extra,
    }
    text = PROMPTS.render(template, language, **values)
    text += "\n\n" + PROMPTS.render(format_template, language, partner=partner, names=names)
    if feedback:
        text += "\n\n" + PROMPTS.render("feedback", language, reason=feedback)
    return text


def _decision_context(state: State, agent: str) -> dict[str, Any]:
    config = _config(state)
    latest = state.latest_belief(agent)
    return {
        "step": "decision",
        "belief": None if latest is None else latest.belief,
        "u": config.agent(agent).u_value,
        "options": [
            {"name": o.name, "kind": o.kind, "upside": o.upside, "downside": o.downside}
            for o in config.options_of(agent)
        ],
    }


def _belief_fields(state: State, agent: str) -> dict[str, Any]:
    config = _config(state)
    latest = state.latest_belief(agent)
    prediction = state.latest_prediction(agent)
    partner = config.partner_of(agent) or ""
    previous = (
        PROMPTS.render(
            "previous_prediction", config.language, partner=partner, prediction=prediction
        )
        if prediction is not None
        else ""
    )
    return {
        "belief": "not stated" if latest is None else latest.belief,
        "previous_prediction": previous,
    }


def _decision_fields(state: State, agent: str) -> dict[str, Any]:
    config = _config(state)
    language = config.language
    partner = config.partner_of(agent)
    initial = state.initial_belief(agent)
    latest = state.latest_belief(agent)
    prediction = state.latest_prediction(agent)
    u = config.agent(agent).u_value
    fields: dict[str, Any] = {
        "initial": "not stated" if initial is None else initial.belief,
        "latest": "not stated" if latest is None else latest.belief,
        "u": f"{u:g}",
        "u_percent": _percent(u),
        "partner_options": "",
        "conversation_block": "",
        "prediction_line": "",
        "partner_initial": "",
    }
    if partner is not None:
        fields["partner_options"] = "\n" + PROMPTS.render(
            "partner_options",
            language,
            partner=partner,
            options=render.options_text(config.options_of(partner), language),
        )
        fields["conversation_block"] = PROMPTS.render(
            "decision_conversation", language, conversation=render.conversation(state)
        )
        if prediction is not None:
            fields["prediction_line"] = PROMPTS.render(
                "decision_prediction", language, partner=partner, prediction=prediction
            )
        partner_initial = state.initial_belief(partner)
        if config.disclose_initial_belief and partner_initial is not None:
            fields["partner_initial"] = PROMPTS.render(
                "decision_partner_initial", language, partner=partner, belief=partner_initial.belief
            )
    return fields


def _percent(u: float) -> str:
    value = Fraction(str(u)) * 100
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
