"""The collaboration game (docs/collaboration.md), behind the generic Experiment interface."""

from __future__ import annotations

from maai.domain.collaboration import protocol
from maai.domain.collaboration import state as game_state
from maai.domain.collaboration.config import CollaborationConfig
from maai.domain.collaboration.events import COLLABORATION_EVENTS
from maai.domain.collaboration.prompts import PROMPTS
from maai.domain.collaboration.simulated import SimulatedParticipant, SimulatedUtility
from maai.domain.collaboration.summary import summarize
from maai.domain.experiment import DeclaredExperiment


class Collaboration(DeclaredExperiment):
    name = "collaboration"
    title = "Two-agent collaboration game"
    config_model = CollaborationConfig
    events = COLLABORATION_EVENTS
    prompts = PROMPTS
    default_config = "collaboration.yaml"
    views_module = "maai.projections.collaboration"
    docs = "docs/collaboration.md"
    initial_state = staticmethod(game_state.initial_state)
    evolve = staticmethod(game_state.evolve)
    fast_fold = staticmethod(game_state.fold)
    decide = staticmethod(protocol.decide)
    summarize = staticmethod(summarize)
    participant = SimulatedParticipant
    utility = SimulatedUtility


EXPERIMENT = Collaboration()
