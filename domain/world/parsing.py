"""Deterministic readers of the world's answers (docs/world.md §4, §5).

An action is a JSON object. Its checks against the world *as it stood at the tick's start*
are made here, and a failing answer is sent back with the reason (bounded attempts): a
location that does not exist or may not be entered, speech to someone not present, a
contribution outside 0..endowment. Checks against the world *as changed by earlier actions
of the tick* (capacity, whose turn) are made when the action is applied (``apply.py``).
What cannot be read at all, including a contribution in words ("all of it"), is undecided:
the utility agent is asked, never a default.

Clear answers are read as meant rather than sent back: an action or reaction in another case
("Move", "Continue"), a place named in another case or with "the" when that names one place,
``destination`` for ``to``, whole numbers sent as strings ("7"). A key given twice with
different values is Undecided (which one was meant cannot be told); JSON nested too deep or
holding a number of too many digits is Invalid (maai.domain.answer_text)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from maai.domain.answer_text import (
    TOO_LONG,
    JsonProblem,
    find_json_object,
    normalise_whitespace,
    too_long,
)
from maai.domain.answer_text import loads as load_json
from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided
from maai.domain.world.world import WorldSpec

ACTIONS = ("move", "speak", "wait", "done", "failed", "contribute", "announce")
REACTIONS = ("continue", "postpone", "cancel")


@dataclass(frozen=True)
class ActView:
    """What an action is checked against when it is read: the world at the tick's start,
    as the agent's prompt showed it."""

    world: WorldSpec
    agent: str
    location: str
    present: tuple[str, ...]  # the others at the agent's location
    has_plan: bool
    react_asked: bool
    role: str | None
    endowment: int | None
    players: tuple[str, ...]
    max_plans: int | None  # plans one answer may give; None: one 'plan' (before plan lists)


def _problem(problem: JsonProblem) -> Invalid | Undecided:
    if problem.ambiguous:
        return Undecided(str(problem))
    return Invalid(str(problem))


def read_action(text: str, view: ActView) -> ParseResult[dict[str, Any]]:
    # JSON strings are the agents' words: the text read is the answer itself, unnormalised
    # (json is linear in its input); only its length is bounded.
    if too_long(normalise_whitespace(text)):
        return Undecided(TOO_LONG)
    data = find_json_object(text)
    if isinstance(data, JsonProblem):
        return _problem(data)
    if data is None:
        return Undecided("no JSON object in the answer")
    return check_action(data, view)


def check_action(data: dict[str, Any], view: ActView) -> ParseResult[dict[str, Any]]:
    """Validate an action object (from the participant or the utility agent)."""
    allowed = _allowed_actions(view)
    kind = _word(data.get("action"))
    if kind not in allowed:
        return Invalid(f"'action' must be one of: {', '.join(allowed)}")
    value: dict[str, Any] = {"action": kind}
    problem = _check_kind(kind, data, view, value)
    if isinstance(problem, (Invalid, Undecided)):
        return problem
    if view.max_plans is None:
        return _with_single_plan(data, view, value)
    return _with_plan_list(data, view, value, view.max_plans)


def _with_plan_list(
    data: dict[str, Any], view: ActView, value: dict[str, Any], max_plans: int
) -> ParseResult[dict[str, Any]]:
    """The plans and reaction of an answer (§4): up to ``max_plans`` plans."""
    kind = value["action"]
    plans = _check_plans(data, view, max_plans)
    if isinstance(plans, Invalid):
        return plans
    if plans:
        value["plans"] = plans
    elif not view.has_plan:
        return Invalid("you have no current plan: include 'plans' with what you will do next")
    if view.react_asked:
        react = _word(data.get("react"))
        if react not in REACTIONS:
            return Invalid("'react' must be one of: " + ", ".join(REACTIONS))
        if react == "postpone" and not plans:
            return Invalid("to postpone your plan, give the new 'plans' that go first")
        if kind in ("done", "failed") and react != "continue":
            # 'done' and 'failed' are about the plan the prompt showed as current; postponing
            # or cancelling it in the same answer would leave them about another plan.
            return Invalid(f"'{kind}' ends your current plan: with it, 'react' must be 'continue'")
        value["react"] = react
    return Parsed(value)


def _with_single_plan(
    data: dict[str, Any], view: ActView, value: dict[str, Any]
) -> ParseResult[dict[str, Any]]:
    """The plan and reaction of an answer as read before plan lists (``max_plans: null``,
    and runs recorded then, which must read the same): one 'plan' object."""
    plan = data.get("plan")
    if plan is not None:
        checked = _check_plan(plan, view, "plan")
        if isinstance(checked, Invalid):
            return checked
        value["plan"] = checked
    elif not view.has_plan:
        return Invalid("you have no current plan: include a 'plan' for what you will do next")
    if view.react_asked:
        react = _word(data.get("react"))
        if react not in REACTIONS:
            return Invalid("'react' must be one of: " + ", ".join(REACTIONS))
        if react == "postpone" and plan is None:
            return Invalid("to postpone your plan, give the new 'plan' that goes first")
        value["react"] = react
    return Parsed(value)


def _allowed_actions(view: ActView) -> list[str]:
    kinds = ["move", "speak", "wait"]
    if view.has_plan:
        kinds += ["done", "failed"]
    if view.role == "player":
        kinds.append("contribute")
    if view.role == "moderator":
        kinds.append("announce")
    return kinds


def _check_kind(
    kind: str, data: dict[str, Any], view: ActView, value: dict[str, Any]
) -> Invalid | Undecided | None:
    if kind == "move":
        to = data.get("to", data.get("destination"))
        if "to" in data and "destination" in data and data["to"] != data["destination"]:
            return Invalid("give the place you move to once, as 'to'")
        to = place_named(to, view.world)
        reason = location_problem(to, view)
        if reason is not None:
            return Invalid(reason)
        if to == view.location:
            return Invalid(f"you are already in {to}")
        value["to"] = to
    elif kind == "speak":
        text = data.get("text")
        if not isinstance(text, str) or not text.strip():
            return Invalid("say something: 'text' is empty")
        to = _whom(data.get("to", "all"), view.present)
        if to != "all" and to not in view.present:
            here = ", ".join(view.present) or "nobody else"
            return Invalid(f"{to} is not here in {view.location} (present: {here})")
        value["to"] = to
        value["text"] = text.strip()
    elif kind == "contribute":
        got = read_amount(data.get("amount"), view.endowment or 0)
        if not isinstance(got, Parsed):
            return got
        value["amount"] = got.value
    elif kind == "announce":
        payoffs = data.get("payoffs")
        if not isinstance(payoffs, dict) or not payoffs:
            return Invalid("'payoffs' must give each player's payoff as a number")
        numbers: dict[str, float] = {}
        for player, stated in payoffs.items():
            amount = _number(stated)
            if isinstance(amount, bool) or not isinstance(amount, (int, float)):
                return Invalid(f"the payoff of {player} must be a number")
            numbers[str(player)] = float(amount)
        value["payoffs"] = dict(sorted(numbers.items()))  # as stored: canonical order
        value["text"] = str(data.get("text") or "")
    return None


def read_amount(raw: Any, endowment: int) -> ParseResult[int]:
    """A contribution: a whole number 0..endowment. Words are undecided (the utility agent
    reads them); a number outside the range is invalid, with the range."""
    bounds = f"a whole number of points from 0 to {endowment}"
    if isinstance(raw, bool) or raw is None:
        return Invalid(f"'amount' must be {bounds}")
    if isinstance(raw, str):
        if not re.fullmatch(r"\s*-?\d+\s*", raw):
            return Undecided(f"the amount {raw!r} is not a number")
        raw = int(raw)
    if isinstance(raw, float):
        if not raw.is_integer():
            return Invalid(f"{raw:g} is not {bounds}")
        raw = int(raw)
    if not isinstance(raw, int):
        return Invalid(f"'amount' must be {bounds}")
    if raw < 0 or raw > endowment:
        return Invalid(f"{raw} is not {bounds}")
    return Parsed(raw)


def _word(value: Any) -> Any:
    """An action or reaction word as meant: "Continue" and " move " are read."""
    return value.strip().rstrip(".!").lower() if isinstance(value, str) else value


def _number(value: Any) -> Any:
    """A whole number sent as a string ("7") as the number; anything else as it is."""
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,9}\s*", value):
        return int(value)
    return value


def place_named(name: Any, world: WorldSpec) -> Any:
    """The location a name means: itself, or the one location it names in another case or
    with "the" ("the hall" for "Hall"); anything else as it is (and then refused)."""
    if not isinstance(name, str) or world.has_location(name):
        return name
    wanted = _plain(name)
    matches = [loc.name for loc in world.locations if _plain(loc.name) == wanted]
    return matches[0] if len(matches) == 1 else name


def _plain(name: str) -> str:
    return re.sub(r"^the\s+", "", " ".join(name.split()).casefold())


def _whom(name: Any, present: tuple[str, ...]) -> Any:
    """Who is spoken to: "all" in any case, or the one person present whose name it is in
    another case."""
    if not isinstance(name, str) or name in present:
        return name
    if name.strip().casefold() in ("all", "everyone"):
        return "all"
    matches = [p for p in present if p.casefold() == name.strip().casefold()]
    return matches[0] if len(matches) == 1 else name


def location_problem(name: Any, view: ActView) -> str | None:
    if not isinstance(name, str) or not name:
        return "name the location"
    if not view.world.has_location(name):
        known = ", ".join(loc.name for loc in view.world.locations)
        return f"there is no location called {name!r} (the locations are: {known})"
    if not view.world.location(name).admits(view.agent):
        return f"you may not enter {name}"
    return None


def _check_plans(
    data: dict[str, Any], view: ActView, max_plans: int
) -> list[dict[str, Any]] | Invalid:
    """The answer's plans, in order (§4): a list under ``plans`` (``plan`` is taken as a
    list too, or as a single plan object); an empty list is no plans. Each is checked, and
    the reason names the plan at fault."""
    single, many = data.get("plan"), data.get("plans")
    if single is not None and many is not None:
        return Invalid("give your plans once, as 'plans' (a list), not both 'plan' and 'plans'")
    raw = many if many is not None else single
    if raw is None:
        return []
    if isinstance(raw, dict):
        checked = _check_plan(raw, view, "plan")
        return checked if isinstance(checked, Invalid) else [checked]
    if not isinstance(raw, list):
        return Invalid("'plans' must be a list of plans, each with location and description")
    if len(raw) > max_plans:
        return Invalid(f"give at most {max_plans} plans at a time, not {len(raw)}")
    plans = []
    for number, plan in enumerate(raw, 1):
        checked = _check_plan(plan, view, f"plan {number}")
        if isinstance(checked, Invalid):
            return checked
        plans.append(checked)
    return plans


def _check_plan(plan: Any, view: ActView, which: str) -> dict[str, Any] | Invalid:
    if not isinstance(plan, dict):
        named = f"'{which}'" if which == "plan" else which  # the key, or its place in the list
        return Invalid(f"{named} must be an object with location, description, stop_condition")
    location = place_named(plan.get("location"), view.world)
    reason = location_problem(location, view)
    if reason is not None:
        return Invalid(f"{which}: {reason}")
    description = plan.get("description")
    if not isinstance(description, str) or not description.strip():
        return Invalid(f"{which}: give a description")
    max_ticks = _number(plan.get("max_ticks"))
    if max_ticks is not None and (
        isinstance(max_ticks, bool) or not isinstance(max_ticks, int) or not 1 <= max_ticks <= 1000
    ):
        return Invalid(f"{which}: max_ticks must be a whole number from 1 to 1000")
    stop = plan.get("stop_condition", "")
    return {
        "location": location,
        "description": description.strip(),
        "stop_condition": stop if isinstance(stop, str) else "",
        "max_ticks": max_ticks,
    }


_ARRAY = re.compile(r"\[[^\[\]]*+\]")


def read_scores(text: str, count: int) -> ParseResult[list[int]]:
    """Importance scores: a JSON array of ``count`` whole numbers 1–10, in the order of the
    observations listed. Where the answer holds several lists of ``count`` numbers that
    differ (the scores and a scale "[1, 10]", a draft and a correction), which one is meant
    cannot be told: Undecided."""
    clean = normalise_whitespace(text)
    if too_long(clean):
        return Undecided(TOO_LONG)
    found = _ARRAY.findall(clean)
    if not found:
        return Undecided("no list of scores in the answer")
    lists: list[Any] = []
    for array in found:
        try:
            lists.append(load_json(array))
        except JsonProblem as problem:
            return _problem(problem)
        except ValueError:
            continue
    if not lists:
        return Undecided("the list of scores is not valid JSON")
    sized = [[_number(s) for s in scores] for scores in lists if len(scores) == count]
    distinct = {tuple(map(repr, scores)) for scores in sized}
    if len(distinct) > 1:
        return Undecided(f"the answer holds {len(distinct)} different lists of {count} numbers")
    return check_scores(sized[0] if sized else lists[-1], count)


def check_scores(scores: Any, count: int) -> ParseResult[list[int]]:
    if isinstance(scores, list):
        scores = [_number(s) for s in scores]
    if not isinstance(scores, list) or len(scores) != count:
        return Invalid(f"give exactly {count} scores, one per observation, as a JSON list")
    for s in scores:
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 10:
            return Invalid("each score must be a whole number from 1 to 10")
    return Parsed(list(scores))
