"""maai's contract tests (maai.testing) for the ultimatum game."""

from maai.testing.contract import *  # noqa: F403

CONTRACT_EXPERIMENTS = ["ultimatum"]
