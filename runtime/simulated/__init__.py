"""The offline simulated model: an experiment's seeded simulated policy behind the OpenAI
Agents SDK ``Model`` interface (see docs/simulated.md).

It is a simulation, named as one everywhere it appears (model ``simulated``, response ids
``sim-...``), so that a whole experiment runs without a network or an API key.
"""

from maai.runtime.simulated.model import MODEL_NAME, SimulatedModel, SimulationWiringError

__all__ = ["MODEL_NAME", "SimulatedModel", "SimulationWiringError"]
