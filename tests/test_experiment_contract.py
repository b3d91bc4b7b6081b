"""The contract tests of maai.testing, for every experiment installed (the built-in ones, and
a plug-in such as examples/ultimatum where it is installed)."""

from maai.testing.contract import *  # noqa: F403
