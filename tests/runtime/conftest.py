"""The runtime tests' loopback server (``server``) and, for every runtime test, no proxy from
the environment: one would take the loopback traffic elsewhere. Both live in
tests/support/provider_calls.py; a module with a server of its own defines ``server``."""

from tests.support.provider_calls import no_proxies, server  # noqa: F401 (fixtures)
