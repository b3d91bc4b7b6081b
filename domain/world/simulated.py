"""The world's simulated participants and utility agent (docs/world.md §7): seeded personas
that answer in JSON, now and then with a mistake (a plan to a place that does not exist, the
last of a wanderer's plans; speech to someone absent; a contribution of -3, one above the
endowment, or "all of it" in words) so that every validation path runs offline. Pure: an
answer depends on the run's seed, the persona and the request (its address, purpose and
context), never on the prompt text.

- cooperative player: goes to the contribution room on its turn, contributes most of its
  endowment, returns to the game room;
- selfish player: the same, contributing little;
- moderator: waits in the contribution room while players contribute, then announces the
  payoffs it computes from the contributions it witnessed (now and then off by a point, so
  the announcement check has something to catch);
- wanderer (the free world): makes one to three plans at a time, walks to them, talks, ends
  plans, and now and then postpones its plan to answer what it saw.
"""

from __future__ import annotations

import json
import random
import re
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from typing import Any

from maai.domain.calls import EXTRACT, ModelRequest
from maai.domain.random_streams import stream
from maai.domain.world.world import AgentSpec, PersonaSpec

ERRANDS = (
    "look around and talk to whoever is there",
    "sit for a while and watch",
    "find a quiet corner to think",
)
ACTION_KEYS = ("action", "to", "text", "amount", "payoffs", "react", "plans")
GREETINGS = (
    "Good to see you here.",
    "Lovely day, isn't it?",
    "I was hoping we could talk about the game.",
    "Let us all do well together.",
)


class SimulatedParticipant:
    def __init__(self, agent: AgentSpec, seed: int) -> None:
        persona = agent.persona or PersonaSpec()
        self.name = agent.name
        self.seed = seed
        if persona.kind is not None:
            self.kind = persona.kind
        elif agent.role == "moderator":
            self.kind = "moderator"
        elif agent.role == "player":
            rng = stream(seed, f"sim/{agent.name}/persona")
            self.kind = rng.choice(("cooperative", "selfish"))
        else:
            self.kind = "wanderer"
        self.error_rate = persona.error_rate
        self.latency_ms = persona.latency_ms

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        rng = stream(self.seed, f"sim/{self.name}/{request.address}")
        ctx = request.context
        if request.purpose == "importance":
            return self._scores(ctx, rng)
        wrong = rng.random() < self.error_rate
        # One mistake per wrong answer: in the plans when they are due, else in the action.
        planning = not ctx.get("has_plan")
        action = self._action(ctx, rng, wrong and not planning)
        if isinstance(action, str):
            return action
        if planning:
            self._add_plans(action, ctx, rng, wrong)
        if ctx.get("react_asked"):
            action["react"] = "continue"
            # A wanderer now and then stops what it does for what it just saw, staying where it
            # is, and resumes its plan after (not while ending it: 'done' goes with 'continue').
            ending = action["action"] in ("done", "failed")
            if self.kind == "wanderer" and not ending and rng.random() < 0.25:
                action = self._chat(ctx, rng, False)
                action["react"] = "postpone"
                plan = self._plan(ctx, rng, False, here=True)
                if "max_plans" in ctx:
                    action["plans"] = [plan]
                else:  # before plan lists: one plan object
                    action["plan"] = plan
        return json.dumps(action)

    def _add_plans(
        self, action: dict[str, Any], ctx: dict[str, Any], rng: random.Random, wrong: bool
    ) -> None:
        """Players and the moderator give one plan, as a single object (as everyone did before
        plan lists: no ``max_plans`` in the context); a wanderer a list of one to three (at
        most ``max_plans``), the wrong one last."""
        if self.kind != "wanderer" or "max_plans" not in ctx:
            action["plan"] = self._plan(ctx, rng, wrong)
            return
        count = min(rng.choice((1, 1, 2, 3)), int(ctx["max_plans"]))
        plans = [self._plan(ctx, rng, False) for _ in range(count - 1)]
        action["plans"] = [*plans, self._plan(ctx, rng, wrong)]

    def _scores(self, ctx: dict[str, Any], rng: random.Random) -> str:
        observed: list[str] = ctx.get("observations", [])
        scores = [_importance(d, rng) for d in observed]
        if rng.random() < self.error_rate and ctx.get("attempt") == 1:
            scores = scores[:-1] or [11]  # a wrong count, or out of range
        return f"My ratings: {json.dumps(scores)}"

    def _plan(
        self, ctx: dict[str, Any], rng: random.Random, wrong: bool, *, here: bool = False
    ) -> dict[str, Any]:
        places: list[str] = ctx.get("places") or [ctx["location"]]
        where = "Moon Base" if wrong and ctx.get("attempt") == 1 else rng.choice(places)
        errand = rng.choice(ERRANDS)
        if here:  # postponing its plan to answer what it just saw, where it is
            where, errand = ctx["location"], "answer whoever spoke to me"
        if ctx.get("game"):
            where = ctx["game"]["hall"]
        return {
            "location": where,
            "description": errand,
            "stop_condition": "I have done it",
            "max_ticks": rng.randint(2, 4),
        }

    def _action(self, ctx: dict[str, Any], rng: random.Random, wrong: bool) -> dict[str, Any] | str:
        game = ctx.get("game")
        if game is not None and self.kind == "moderator":
            return self._moderate(ctx, game, rng, wrong)
        if game is not None and self.kind in ("cooperative", "selfish"):
            return self._play(ctx, game, rng, wrong)
        return self._wander(ctx, rng, wrong)

    def _play(
        self, ctx: dict[str, Any], game: dict[str, Any], rng: random.Random, wrong: bool
    ) -> dict[str, Any] | str:
        here = ctx["location"]
        endowment = int(ctx["endowment"])
        if game["turn"] == self.name and not game["contributed"]:
            if here != game["booth"]:
                return {"action": "move", "to": game["booth"]}
            # Contributions are where validation matters most: they go wrong three times as
            # often as other answers, on a first or a second attempt.
            if ctx.get("attempt", 1) <= 2 and rng.random() < min(1.0, 3 * self.error_rate):
                mistake = rng.choice(("negative", "above", "words"))
                if mistake == "words":  # the persona's choice, in words
                    if self.kind == "cooperative":
                        return "I will put in all of it."
                    return "I will put in nothing at all."
                amount = -3 if mistake == "negative" else endowment + 5
                return {"action": "contribute", "amount": amount}
            low, high = (0.6, 1.0) if self.kind == "cooperative" else (0.0, 0.3)
            return {"action": "contribute", "amount": round(endowment * rng.uniform(low, high))}
        if here != game["hall"]:
            return {"action": "move", "to": game["hall"]}
        return self._chat(ctx, rng, wrong)

    def _moderate(
        self, ctx: dict[str, Any], game: dict[str, Any], rng: random.Random, wrong: bool
    ) -> dict[str, Any]:
        here = ctx["location"]
        seen: dict[str, int] = game["seen"]
        if len(seen) < len(game["players"]):
            if here != game["booth"]:
                return {"action": "move", "to": game["booth"]}
            return {"action": "wait"}
        if here != game["hall"]:
            return {"action": "move", "to": game["hall"]}
        payoffs = _payoffs(seen, game["endowments"], game["multiplier"])
        if wrong:
            first = sorted(payoffs)[0]
            payoffs[first] = payoffs[first] + 1
        listed = ", ".join(f"{p}: {v:g}" for p, v in payoffs.items())
        return {"action": "announce", "payoffs": payoffs, "text": f"The payoffs are {listed}."}

    def _wander(self, ctx: dict[str, Any], rng: random.Random, wrong: bool) -> dict[str, Any] | str:
        plan = ctx.get("plan")
        here = ctx["location"]
        if plan is not None and plan["location"] != here:
            return {"action": "move", "to": plan["location"]}
        if plan is not None and plan["ticks"] >= 2 and rng.random() < 0.5:
            return {"action": "done"}
        return self._chat(ctx, rng, wrong)

    def _chat(self, ctx: dict[str, Any], rng: random.Random, wrong: bool) -> dict[str, Any]:
        present: list[str] = ctx.get("present", [])
        if wrong and ctx.get("attempt") == 1:
            return {"action": "speak", "to": "Nobody", "text": "Are you there?"}
        if present and rng.random() < 0.5:
            return {"action": "speak", "to": rng.choice(present), "text": rng.choice(GREETINGS)}
        return {"action": "wait"}


def _importance(description: str, rng: random.Random) -> int:
    if "contributed" in description or "announced" in description:
        return rng.randint(7, 9)
    if "said" in description:
        return rng.randint(3, 6)
    return rng.randint(1, 3)


def _payoffs(
    seen: dict[str, int], endowments: dict[str, int], multiplier: float
) -> dict[str, float]:
    # The simulated moderator does the arithmetic its rules describe, on what it witnessed.
    share = Fraction(str(multiplier)) * sum(seen.values()) / len(endowments)
    out: dict[str, float] = {}
    for player, endowment in endowments.items():
        value = Fraction(endowment - seen.get(player, 0)) + share
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        out[player] = float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))
    return out


class SimulatedUtility:
    """Reads a contribution stated in words ("all of it", "nothing", "5 points") and
    list-like importance scores, as a careful utility model would; anything else is
    reported unreadable."""

    latency_ms = 0.0

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.purpose != EXTRACT:
            raise ValueError(f"{request.address}: the utility agent only extracts")
        ctx = request.context
        text = str(ctx.get("text", "")).lower()
        if ctx.get("kind") == "importance":
            numbers = [int(n) for n in re.findall(r"\b\d+\b", text)]
            return json.dumps({"scores": numbers or None, "readable": bool(numbers)})
        endowment = ctx.get("endowment")
        amount: int | None = None
        if re.search(r"\b(nothing|none)\b", text):  # before "all": "nothing at all"
            amount = 0
        elif endowment is not None and re.search(r"\ball\b", text):
            amount = int(endowment)
        elif found := re.findall(r"-?\d+", text):
            amount = int(found[0])
        # The keys of the schema asked for ('plan' before plan lists, else 'plans').
        keys = (schema or {}).get("properties") or ACTION_KEYS
        out: dict[str, Any] = {key: None for key in keys if key != "readable"}
        if amount is not None:
            out.update(action="contribute", amount=amount)
            if ctx.get("react_asked"):
                out["react"] = "continue"
        out["readable"] = amount is not None
        return json.dumps(out)
