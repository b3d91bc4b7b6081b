"""maai: an event-sourced experiment ledger for multi-agent LLM experiments.

The subpackages (``maai.ledger``, ``maai.domain``, ``maai.runtime``, ``maai.projections``,
``maai.cli``, ``maai.configs``) live in the repository's top-level folders and are installed
under this one package (see ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path as _Path
from typing import TYPE_CHECKING, Any

# Run from a source checkout (``python -m pytest`` in the repository, or an editable install
# whose finder is consulted after the path finder) the subpackages sit beside this folder,
# not inside it. An installed copy has them inside, and never looks elsewhere.
_here = _Path(__file__).resolve().parent
if not (_here / "ledger").is_dir() and (_here.parent / "ledger" / "__init__.py").is_file():
    __path__.append(str(_here.parent))  # noqa: F821 -- the package's own search path

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
