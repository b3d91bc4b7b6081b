"""The collaboration game's simulated participants and utility agent (docs/simulated.md):
seeded personas (trusting, cautious, strategic) that write labelled answers, now and then a
malformed one or a message that breaks the rules, so every reading path runs offline. Pure:
an answer depends on the run's seed, the persona and the request (its address, purpose and
context), never on the prompt text."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from maai.domain.calls import EXTRACT, ModelRequest
from maai.domain.collaboration.config import AgentConfig, PersonaConfig
from maai.domain.collaboration.parsing import sections
from maai.domain.random_streams import stream

KINDS = ("trusting", "cautious", "strategic")
_START = {"trusting": (65, 90), "cautious": (20, 50), "strategic": (45, 70)}
_GAIN = {"trusting": 1.2, "cautious": 0.6, "strategic": 1.0}
_WARM = re.compile(
    r"\b(together|collaborat\w*|partner\w*|commit\w*|trust\w*|excited|confident|joint|"
    r"share\w*|win-win|build)\b",
    re.IGNORECASE,
)
_COOL = re.compile(
    r"\b(risk\w*|careful|cautious|unsure|alone|own|hesitant|doubt\w*|safe\w*|fallback|"
    r"guarantee\w*|independent\w*)\b",
    re.IGNORECASE,
)

MESSAGES = {
    "trusting": [
        "I am excited about building something together. Our teams complement each other "
        "and I am ready to commit if you are.",
        "Your message reassures me. Let us agree on shared milestones and make this joint "
        "project a success.",
        "I trust we can make this work. I am prepared to put real resources into the partnership.",
    ],
    "cautious": [
        "A joint project could work, but I want to understand the risks first. What would "
        "you commit to if things go badly?",
        "I remain careful. A guaranteed result for my company matters a lot to me, so I need "
        "more than good intentions.",
        "I hear you. I am still weighing the safe path against the joint one.",
    ],
    "strategic": [
        "There is clear value in working together if we both commit. How firm is your interest?",
        "I would like a concrete plan: shared design work first, then joint production. "
        "Would you sign up to that?",
        "If you are as serious as you sound, I am willing to move forward together.",
    ],
}
BREACHES = ("I'm about 80% sure this will work.", "I am leaning towards option A myself.")


class SimulatedParticipant:
    def __init__(self, agent: AgentConfig, seed: int) -> None:
        persona = agent.persona or PersonaConfig()
        rng = stream(seed, f"sim/{agent.name}/persona")
        self.name = agent.name
        self.seed = seed
        self.kind: str = persona.kind or rng.choice(KINDS)
        self.error_rate = persona.error_rate if persona.error_rate is not None else 0.1
        self.breach_rate = persona.breach_rate if persona.breach_rate is not None else 0.1
        self.latency_ms = persona.latency_ms or 0.0

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        rng = stream(self.seed, f"sim/{self.name}/{request.address}")
        ctx = request.context
        if request.purpose == "decision":
            return self._decision(ctx, rng)
        belief = self._belief(ctx, rng)
        lines = []
        malformed = rng.random() < self.error_rate
        lines.append(_belief_line(belief, malformed, rng))
        if ctx.get("prediction"):
            lines.append(f"PREDICTION: {self._prediction(ctx, belief, rng)}")
        lines.append(f"REASONING: {self._reasoning(belief, rng)}")
        if ctx.get("message"):
            message = rng.choice(MESSAGES[self.kind])
            if rng.random() < self.breach_rate:
                message += " " + rng.choice(BREACHES)
            lines.append(f"MESSAGE: {message}")
        return "\n".join(lines)

    def _belief(self, ctx: dict[str, Any], rng: random.Random) -> int:
        previous = ctx.get("belief")
        if previous is None:
            low, high = _START[self.kind]
            return rng.randint(low, high)
        text = ctx.get("partner_last") or ""
        signal = len(_WARM.findall(text)) - len(_COOL.findall(text))
        moved: float = previous + _GAIN[self.kind] * 4 * signal + rng.randint(-3, 3)
        return max(0, min(100, round(moved)))

    def _prediction(self, ctx: dict[str, Any], belief: int, rng: random.Random) -> int:
        text = ctx.get("partner_last") or ""
        signal = len(_WARM.findall(text)) - len(_COOL.findall(text))
        return max(0, min(100, belief + 5 * signal + rng.randint(-8, 8)))

    def _reasoning(self, belief: int, rng: random.Random) -> str:
        if belief >= 70:
            return rng.choice(
                ["The signals are good and the upside is large.", "I think we can pull it off."]
            )
        if belief >= 45:
            return rng.choice(["It could go either way.", "I need more assurance before I commit."])
        return rng.choice(["The downside worries me.", "A guaranteed result looks safer."])

    def _decision(self, ctx: dict[str, Any], rng: random.Random) -> str:
        options = ctx.get("options") or []
        individual = next((o["name"] for o in options if o["kind"] == "individual"), "Y")
        collaborative = [o for o in options if o["kind"] == "collaborative"]
        if rng.random() < self.error_rate / 2:
            return "CHOICE: Z\nREASONING: I am going with my gut."
        belief = ctx.get("belief")
        u = float(ctx.get("u", 0.75))
        margin = {"trusting": -0.05, "cautious": 0.05, "strategic": 0.0}[self.kind]
        if belief is None or belief / 100 < u + margin or not collaborative:
            return f"CHOICE: {individual}\nREASONING: My belief is below my threshold."
        if self.kind == "trusting":
            pick = max(collaborative, key=lambda o: o["upside"])
        elif self.kind == "cautious":
            pick = max(collaborative, key=lambda o: o["downside"])
        else:
            pick = collaborative[len(collaborative) // 2]
        return f"CHOICE: {pick['name']}\nREASONING: I believe the collaboration will succeed."


def _belief_line(belief: int, malformed: bool, rng: random.Random) -> str:
    if not malformed:
        return f"BELIEF: {belief}"
    form = rng.randrange(4)
    if form == 0:
        return "BELIEF: around seventy-ish"
    if form == 1:
        return f"BELIEF: {belief + 100}"
    if form == 2:
        return f"BELIEF: {belief / 100:.2f}"  # a probability: the utility agent reads it
    return f"I'd put it at {belief} out of 100 if I had to."  # no label


class SimulatedUtility:
    """Lenient extraction into the requested JSON, as a careful utility model would do."""

    latency_ms = 0.0

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def answer(self, request: ModelRequest, schema: dict[str, Any] | None) -> str:
        if request.purpose != EXTRACT:
            raise ValueError(f"{request.address}: the utility agent only extracts")
        text = str(request.context.get("text", ""))
        kind = request.context.get("kind")
        parts = sections(text)
        out: dict[str, Any] = {"belief": None, "prediction": None, "option": None}
        if kind == "decision":
            choice = parts.get("choice", text)
            found = re.findall(r"\b([A-Z][A-Za-z0-9]*)\b", choice)
            out["option"] = found[0] if found else None
        else:
            out["belief"] = _number(parts.get("belief") or text)
            out["prediction"] = _number(parts.get("prediction") or "")
        out["readable"] = any(v is not None for v in out.values())
        return json.dumps(out)


def _number(text: str) -> int | None:
    found = re.findall(r"\d+(?:\.\d+)?", text)
    if not found:
        return None
    value = float(found[0])
    return round(value * 100) if value <= 1 and "." in found[0] else round(value)
