"""The simulated participant: an offline, seeded, persona-driven stand-in for a language
model, behind the OpenAI Agents SDK ``Model`` interface (see docs/simulated.md).

It is a simulation, named as one everywhere it appears (model ``simulated``, response ids
``sim-...``), so that a whole experiment runs without a network or an API key.
"""

from maai.runtime.simulated.model import (
    MODEL_NAME,
    SimulatedParticipant,
    SimulatedUtility,
    build_simulated,
)
from maai.runtime.simulated.persona import Persona, persona_for
from maai.runtime.simulated.policy import SimulationError

__all__ = [
    "MODEL_NAME",
    "Persona",
    "SimulatedParticipant",
    "SimulatedUtility",
    "SimulationError",
    "build_simulated",
    "persona_for",
]
