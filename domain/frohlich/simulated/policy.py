"""What the simulated participant answers to one request: a pure function of the run seed,
the persona and the request (address, purpose, context)."""

from __future__ import annotations

from maai.domain.calls import ModelRequest
from maai.domain.frohlich.purposes import Purpose
from maai.domain.frohlich.simulated import memory, phase1, phase2
from maai.domain.frohlich.simulated.persona import Persona, stream
from maai.domain.frohlich.simulated.phrases import Phrases


class SimulationError(RuntimeError):
    """The simulated model was called in a way it cannot answer (a wiring mistake)."""


def answer(ph: Phrases, persona: Persona, seed: int, request: ModelRequest) -> str:
    # One generator per call, named by the logical address: retries and parallel agents get
    # their own draws whatever order the calls run in.
    rng = stream(seed, persona.name, request.address)
    ctx = request.context
    purpose = request.purpose
    if purpose == Purpose.RANKING:
        return phase1.ranking(ph, persona, ctx, rng)
    if purpose == Purpose.CHOICE:
        return phase1.choice(ph, persona, ctx, rng)
    if purpose == Purpose.REASONING:
        return phase2.reasoning(ph, persona, seed, ctx, rng)
    if purpose == Purpose.STATEMENT:
        return phase2.statement(ph, persona, seed, ctx, rng)
    if purpose == Purpose.POLL:
        return phase2.poll(ph, persona, seed, ctx, rng)
    if purpose == Purpose.BALLOT:
        return phase2.ballot(ph, persona, seed, ctx, rng)
    if purpose == Purpose.MEMORY:
        return memory.update(ph, persona, ctx, rng)
    if purpose == Purpose.MEMORY_SHORTEN:
        return memory.shorten(ph, persona, ctx, rng)
    raise SimulationError(
        f"{request.address}: a simulated participant does not answer {purpose!r} requests"
        " (extraction goes to the simulated utility agent)"
    )
