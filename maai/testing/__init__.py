"""Contract tests every experiment passes, built-in or plug-in (docs/experiments.md,
"Contract tests"). A plug-in's test file takes them in one line::

    from maai.testing.contract import *  # noqa: F403

They run for every experiment this installation knows (``experiments.names()``); a module
that sets ``CONTRACT_EXPERIMENTS = ["ultimatum"]`` runs them for those alone.
"""

import pytest

# Assertions in the contract say what they compared, as in a test module of one's own.
pytest.register_assert_rewrite("maai.testing.contract")
