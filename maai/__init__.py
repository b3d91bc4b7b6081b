"""maai: an event-sourced experiment ledger for multi-agent LLM experiments.

The subpackages (``maai.ledger``, ``maai.domain``, ``maai.runtime``, ``maai.projections``,
``maai.cli``, ``maai.configs``) live in the repository's top-level folders and are installed
under this one package (see ``pyproject.toml``). In a checkout they are found through the
editable install (``pip install -e .``), never by searching beside this folder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The Python API (maai/api.py), loaded on first use: ``import maai`` imports neither
# SQLAlchemy nor the OpenAI SDK.
_API_NAMES = frozenset({"open", "Ledger", "Run", "RunRecord", "MissingExtraError"})

if TYPE_CHECKING:
    from maai.api import Ledger, MissingExtraError, Run, RunRecord, open  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _API_NAMES:
        from maai import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API_NAMES})
