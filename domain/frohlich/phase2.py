"""Phase 2 (docs/frohlich.md §4): the group discussion, the secret ballot, the group payment and the
final ranking."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from typing import Any

from maai.domain.calls import ModelRequest, first_after
from maai.domain.frohlich import manipulator, parsing, render, rules
from maai.domain.frohlich.config import FrohlichConfig
from maai.domain.frohlich.elicit import Elicited, elicit
from maai.domain.frohlich.events import (
    AnswerKind,
    BallotResolved,
    DiscussionEnded,
    PollResolved,
    ReasoningRecorded,
    SpeakingOrderDrawn,
    StatementMade,
    TallyLine,
)
from maai.domain.frohlich.phase2_history import HISTORY_MARK, discussion_context, shown_history_text
from maai.domain.frohlich.phase2_payment import final_ranking, group_payment
from maai.domain.frohlich.prompts import render as render_template
from maai.domain.frohlich.prompts import word
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.state import State
from maai.domain.frohlich.steps import (
    builder,
    config_of,
    free_text,
    group_texts,
    memory_done,
    memory_update,
    participant_request,
    step_started,
)
from maai.domain.frohlich.types import PrincipleChoice
from maai.domain.walk import Emit, Walk, parallel, wait


def phase2(state: State) -> Walk[None]:
    config = config_of(state)
    names = [a.name for a in config.agents]
    yield from step_started(state, "2.1", None)
    yield from manipulator.choose_target(state, config)
    agreement = yield from discussion(state, names)
    yield from step_started(state, "2.2", None)
    outcomes = yield from group_payment(state, names, agreement)
    yield from parallel(
        [
            memory_update(
                state,
                name,
                f"p2/s2.2/{name}/memory",
                "2.2",
                partial(word, config.language_of(name), "payment_task"),
                word(config.language_of(name), "payment_no_answer"),
                outcomes[name],
            )
            for name in names
        ]
    )
    yield from step_started(state, "2.3", None)
    yield from parallel([final_ranking(state, name, outcomes[name]) for name in names])


def discussion(state: State, names: list[str]) -> Walk[PrincipleChoice | None]:
    config = config_of(state)
    ended = state.records.get("discussion/ended")
    if isinstance(ended, DiscussionEnded):
        return ended.agreement
    previous_last: str | None = None
    agreement: PrincipleChoice | None = None
    rounds_used = 0
    # Rounds before the last one over ended without agreement (an agreement ends the
    # discussion), so the walk starts at the last round over.
    for round_ in range(max(1, state.rounds_closed), config.phase2_rounds + 1):
        rounds_used = round_
        closed = closed_round(state, round_, names)
        if closed is not None:
            previous_last, agreement = closed
            if agreement is not None:
                break
            continue
        order = yield from speaking_order(state, round_, names, previous_last)
        for turn, name in enumerate(order, 1):
            statement = yield from speak(state, round_, turn, name)
            if not statement.proposes_vote:
                continue
            passed = yield from poll(state, round_, turn, name, names)
            if not passed:
                continue
            result = yield from ballot(state, round_, turn, names)
            if result.consensus:
                agreement = result.agreement
                break
        yield from parallel([round_memory(state, round_, name) for name in names])
        previous_last = order[-1]
        if agreement is not None:
            break
    yield from wait([Emit(DiscussionEnded(agreement=agreement, rounds_used=rounds_used))])
    raise AssertionError("unreachable")


def closed_round(
    state: State, round_: int, names: list[str]
) -> tuple[str, PrincipleChoice | None] | None:
    """For a round that is over (every agent's memory of it is recorded): its last speaker
    and the agreement reached in it, if any. Read off the records, so that deciding late in
    a long discussion does not walk every earlier round again; ``None`` for a round still
    under way."""
    # Rounds up to ``rounds_closed`` are over by its definition (the same records): the walk
    # starts at the last of them at every decision, so it is not checked agent by agent.
    if round_ > state.rounds_closed and any(
        not memory_done(state, f"p2/r{round_}/{name}/memory") for name in names
    ):
        return None
    order = state.records[f"order/{round_}"]
    assert isinstance(order, SpeakingOrderDrawn)
    for turn in range(1, len(order.order) + 1):
        ballot = state.records.get(f"ballot/{round_}/{turn}")
        if isinstance(ballot, BallotResolved) and ballot.consensus:
            return order.order[-1], ballot.agreement
    return order.order[-1], None


def speaking_order(
    state: State, round_: int, names: list[str], previous_last: str | None
) -> Walk[list[str]]:
    recorded = state.records.get(f"order/{round_}")
    if isinstance(recorded, SpeakingOrderDrawn):
        return recorded.order
    label = f"p2/r{round_}/order"
    order = rules.speaking_order(state.seed, label, names, previous_last)
    event = SpeakingOrderDrawn(round=round_, label=label, order=order, previous_last=previous_last)
    yield from wait([Emit(event)])
    raise AssertionError("unreachable")


def _turn_values(
    state: State, round_: int, language: str, history: str | None = None
) -> dict[str, Any]:
    """What every Phase-2 task shows, in the reader's ``language``; ``history`` in place of
    the public history's text where given (``HISTORY_MARK``)."""
    config = config_of(state)
    if config.prompt_layout == "stable_prefix":
        # Shown before the per-step state instead (participant_request's ``history``).
        return {
            "group_instructions": "",
            "principles": "",
            "round": round_,
            "rounds": config.phase2_rounds,
            "history": word(language, "history_above"),
        }
    group_instructions, principles = group_texts(state, language)
    return {
        "group_instructions": group_instructions,
        "principles": principles,
        "round": round_,
        "rounds": config.phase2_rounds,
        "history": shown_history_text(state, round_, language) if history is None else history,
    }


def _task(config: FrohlichConfig, text: str) -> str:
    """A Phase-2 task as the layout shows it: in ``stable_prefix`` its first lines (the group
    instructions and principles, shown before) are left empty, and dropped."""
    return text.lstrip("\n") if config.prompt_layout == "stable_prefix" else text


def _showing_history(
    state: State,
    language: str,
    build: Callable[[str], ModelRequest],
    round_: int | None = None,
) -> ModelRequest:
    """The request ``build(history)`` makes, given the public history's text (a Phase-2 task
    showing it, with the history items in its context), told that both are shared: in a run
    on request hash version 2 they are cut out of its hash, which then costs the request's
    own text and not the whole discussion. ``round_``: the round whose task it is, which a
    run with a history window (``history.window_rounds``) needs to show the right rounds.

    The request is built around ``HISTORY_MARK`` and the history put in its place: exactly
    the request built around the history itself (``string.Template`` puts values in as they
    are), where the mark occurs once in the input and the history's first characters do not
    occur before it (so the first occurrence of the history, which its hash cut names, is the
    one put in). Otherwise it is built around the history itself."""
    version = state.started.hash_version if state.started is not None else 1
    cut = version >= 2
    if config_of(state).history.window_rounds is not None and round_ is not None:
        # A window's text is no prefix of the next one's: nothing to share between requests.
        return build(shown_history_text(state, round_, language)).sharing(None, "history", cut=cut)
    if not state.public:
        return build(render.public_history_text(state.public, language)).sharing(
            None, "history", cut=cut
        )
    block = render.public_history_block(state.public, language)
    marked = build(HISTORY_MARK)
    pieces = marked.input.split(HISTORY_MARK)
    if len(pieces) == 2:
        before, after = pieces
        if first_after(before, block.text):
            text = "".join((before, block.text, after))
            span = (len(before), len(before) + len(block.text))
            return marked.sharing(block, "history", cut=cut, span=span, input_text=text)
    return build(block.text).sharing(block, "history", cut=cut)


NO_REASONING = "(no reasoning)"
"""Recorded as the reasoning of a turn whose every reasoning answer was empty (the slot is
recorded missing first): a marker, never the participant's words. This is the English one:
the marker is the word ``no_reasoning`` of the speaker's language (``words.txt``)."""
NO_STATEMENT = "(no statement)"
"""Recorded, and shown to the group, as the statement of a turn whose every statement answer
was empty (the slot is recorded missing first): a marker, never the participant's words.
This is the English one: the marker is the word ``no_statement`` of the speaker's
language."""


def speak(state: State, round_: int, turn: int, name: str) -> Walk[StatementMade]:
    recorded = state.records.get(f"statement/{round_}/{name}")
    if isinstance(recorded, StatementMade):
        return recorded
    config = config_of(state)
    language = config.language_of(name)
    context = partial(discussion_context, state, round_, name)
    reasoning_text: str | None = None
    if config.agent(name).reasoning:
        address = f"p2/r{round_}/{name}/reasoning"
        recorded_reasoning = state.records.get(f"reasoning/{round_}/{name}")
        if not isinstance(recorded_reasoning, ReasoningRecorded):

            def reasoning_request(call: str, feedback: str | None) -> ModelRequest:
                facts = context() if feedback is None else {**context(), "feedback": feedback}

                def showing(history: str) -> ModelRequest:
                    values = _turn_values(state, round_, language, history)
                    task = _task(config, render_template("reasoning", language, **values))
                    task = render.with_feedback(task, feedback, language, "free_text")
                    return participant_request(
                        state, name, call, Purpose.REASONING, task, facts, history=history
                    )

                return _showing_history(state, language, showing, round_)

            text = yield from free_text(
                state,
                agent=name,
                kind="reasoning",
                slot=address,
                max_attempts=config.attempts.reasoning,
                build=reasoning_request,
            )
            reasoned = word(language, "no_reasoning") if text is None else text
            recorded = ReasoningRecorded(agent=name, round=round_, address=address, text=reasoned)
            yield from wait([Emit(recorded)])
            raise AssertionError("unreachable")  # wait() never returns; mypy cannot see it
        # A reasoning recorded missing is not put before the statement: there is none.
        if f"missing/{address}" not in state.records:
            reasoning_text = recorded_reasoning.text
    address = f"p2/r{round_}/{name}/statement"

    def statement_request(call: str, feedback: str | None) -> ModelRequest:
        reasoning_block = (
            render_template("private_reasoning", language, reasoning=reasoning_text.strip())
            if reasoning_text is not None
            else ""
        )
        facts = {**context(), "reasoning": reasoning_text}
        if feedback is not None:
            facts["feedback"] = feedback

        def showing(history: str) -> ModelRequest:
            task = render_template(
                "statement",
                language,
                reasoning=reasoning_block,
                vote_phrase=word(language, "vote_phrase"),
                **_turn_values(state, round_, language, history),
            )
            task = render.with_feedback(_task(config, task), feedback, language, "free_text")
            return participant_request(
                state, name, call, Purpose.STATEMENT, task, facts, history=history
            )

        return _showing_history(state, language, showing, round_)

    said = yield from free_text(
        state,
        agent=name,
        kind="statement",
        slot=address,
        max_attempts=config.attempts.statement,
        build=statement_request,
    )
    event = StatementMade(
        agent=name,
        round=round_,
        turn=turn,
        address=address,
        text=word(language, "no_statement") if said is None else said,
        proposes_vote=said is not None and parsing.parse_vote_proposal(said),
    )
    yield from wait([Emit(event)])
    raise AssertionError("unreachable")


_once_per_walk = cache
"""Remembers a function's results while the walk that made it lasts (a name of its own, so
that tests can compare with walks that remember nothing)."""


def group_answers(
    state: State,
    round_: int,
    turn: int,
    names: list[str],
    kind: AnswerKind,
    **values: str,
) -> Walk[list[Any]]:
    """Every agent answers the same question at once (poll or ballot); the values in the
    order of ``names``, None where an answer is missing."""
    config = config_of(state)
    purpose = Purpose.POLL if kind == "poll" else Purpose.BALLOT
    max_attempts = config.attempts.poll if kind == "poll" else config.attempts.ballot

    # Every agent of a language is asked the same question: rendered once per walk.
    @_once_per_walk
    def task(language: str, feedback: str | None, history: str | None = None) -> str:
        turn_values = _turn_values(state, round_, language, history)
        text = _task(config, render_template(kind, language, **values, **turn_values))
        return render.with_feedback(text, feedback, language, kind)

    def ask(name: str) -> Walk[Elicited]:
        language = config.language_of(name)
        task_of_name = partial(task, language)
        context = partial(discussion_context, state, round_, name, **values)

        def build_sharing(address: str, attempt: int, feedback: str | None) -> ModelRequest:
            def showing(history: str) -> ModelRequest:
                shown = partial(task, language, history=history)
                build = builder(state, name, purpose, shown, context, history=history)
                return build(address, attempt, feedback)

            return _showing_history(state, language, showing, round_)

        return elicit(
            state,
            agent=name,
            kind=kind,
            slot=f"p2/r{round_}/t{turn}/{kind}/{name}",
            max_attempts=max_attempts,
            build=build_sharing,
            task=task_of_name,
        )

    walks = [ask(name) for name in names]
    results = yield from parallel(walks)
    return [r.value for r in results]


def poll(state: State, round_: int, turn: int, proposer: str, names: list[str]) -> Walk[bool]:
    recorded = state.records.get(f"poll/{round_}/{turn}")
    if isinstance(recorded, PollResolved):
        return recorded.passed
    values = yield from group_answers(state, round_, turn, names, "poll", proposer=proposer)
    answers = dict(zip(names, values, strict=True))
    passed = all(a is True for a in answers.values())
    event = PollResolved(round=round_, turn=turn, proposer=proposer, answers=answers, passed=passed)
    yield from wait([Emit(event)])
    raise AssertionError("unreachable")


def ballot(state: State, round_: int, turn: int, names: list[str]) -> Walk[BallotResolved]:
    recorded = state.records.get(f"ballot/{round_}/{turn}")
    if isinstance(recorded, BallotResolved):
        return recorded
    values = yield from group_answers(state, round_, turn, names, "ballot")
    ballots = [None if v is None else PrincipleChoice.model_validate(v) for v in values]
    consensus = rules.is_consensus(ballots)
    tally = [TallyLine(choice=c, count=n) for c, n in rules.tally(ballots)]
    event = BallotResolved(
        round=round_,
        turn=turn,
        tally=tally,
        consensus=consensus,
        agreement=ballots[0] if consensus else None,
    )
    yield from wait([Emit(event)])
    raise AssertionError("unreachable")


def round_memory(state: State, round_: int, name: str) -> Walk[None]:
    slot = f"p2/r{round_}/{name}/memory"
    if memory_done(state, slot):
        return
    statement = state.records.get(f"statement/{round_}/{name}")
    language = config_of(state).language_of(name)

    def summary() -> str:
        # Made only with the request: the walk passes by this step at every decision.
        items = tuple(i for i in state.public if i.round == round_)
        history = render.round_history_text(items, language)
        return render_template("round_summary", language, round=round_, history=history)

    if isinstance(statement, StatementMade):
        answer = statement.text
        task_text = word(language, "round_task_spoke", round=round_)
    else:
        # The discussion ended (consensus) before this agent's turn in the round.
        answer = word(language, "round_silent_answer")
        task_text = word(language, "round_task_silent", round=round_)
    yield from memory_update(state, name, slot, "2.1", lambda: task_text, answer, summary, round_)
