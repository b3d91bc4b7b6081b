"""Deterministic readers of the world's answers (docs/world.md §4, §5).

An action is a JSON object. Its checks against the world *as it stood at the tick's start*
are made here, and a failing answer is sent back with the reason (bounded attempts): a
location that does not exist or may not be entered, speech to someone not present, a
contribution outside 0..endowment. Checks against the world *as changed by earlier actions
of the tick* (capacity, whose turn) are made when the action is applied (``apply.py``).
What cannot be read at all, including a contribution in words ("all of it"), is undecided:
the utility agent is asked, never a default."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from maai.domain.reading import Invalid, Parsed, ParseResult, Undecided
from maai.domain.world.world import WorldSpec

ACTIONS = ("move", "speak", "wait", "done", "failed", "contribute", "announce")
REACTIONS = ("continue", "postpone", "cancel")
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)


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


def json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    candidates = [stripped, *(m.group(1).strip() for m in _FENCE.finditer(stripped))]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            return data
    return None


def read_action(text: str, view: ActView) -> ParseResult[dict[str, Any]]:
    data = json_object(text)
    if data is None:
        return Undecided("no JSON object in the answer")
    return check_action(data, view)


def check_action(data: dict[str, Any], view: ActView) -> ParseResult[dict[str, Any]]:
    """Validate an action object (from the participant or the utility agent)."""
    allowed = _allowed_actions(view)
    kind = data.get("action")
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
        react = data.get("react")
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
        react = data.get("react")
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
        to = data.get("to")
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
        to = data.get("to", "all")
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
        for player, amount in payoffs.items():
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
    reason = location_problem(plan.get("location"), view)
    if reason is not None:
        return Invalid(f"{which}: {reason}")
    description = plan.get("description")
    if not isinstance(description, str) or not description.strip():
        return Invalid(f"{which}: give a description")
    max_ticks = plan.get("max_ticks")
    if max_ticks is not None and (
        isinstance(max_ticks, bool) or not isinstance(max_ticks, int) or not 1 <= max_ticks <= 1000
    ):
        return Invalid(f"{which}: max_ticks must be a whole number from 1 to 1000")
    stop = plan.get("stop_condition", "")
    return {
        "location": plan["location"],
        "description": description.strip(),
        "stop_condition": stop if isinstance(stop, str) else "",
        "max_ticks": max_ticks,
    }


_ARRAY = re.compile(r"\[[^\[\]]*\]")


def read_scores(text: str, count: int) -> ParseResult[list[int]]:
    """Importance scores: a JSON array of ``count`` whole numbers 1–10, in the order of the
    observations listed."""
    found = _ARRAY.findall(text)
    if not found:
        return Undecided("no list of scores in the answer")
    try:
        scores = json.loads(found[-1])
    except json.JSONDecodeError:
        return Undecided("the list of scores is not valid JSON")
    return check_scores(scores, count)


def check_scores(scores: Any, count: int) -> ParseResult[list[int]]:
    if not isinstance(scores, list) or len(scores) != count:
        return Invalid(f"give exactly {count} scores, one per observation, as a JSON list")
    for s in scores:
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 10:
            return Invalid("each score must be a whole number from 1 to 10")
    return Parsed(list(scores))
