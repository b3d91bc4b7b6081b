"""Where a run came from, recorded in its first event: the maai version (and the git commit
when run from a checkout), Python, the platform, and the versions of the packages that shape
its prompts, requests and records."""

from __future__ import annotations

import platform
import subprocess
import sys
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

KEY_PACKAGES = ("maai", "openai-agents", "openai", "pydantic", "sqlalchemy", "pyyaml", "psycopg")


def _version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@cache
def checkout_commit() -> dict[str, Any] | None:
    """The commit of the source checkout maai runs from (an editable install), if any."""
    import maai

    root = Path(maai.__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status)}


@cache
def provenance() -> dict[str, Any]:
    return {
        "maai": _version("maai") or "unknown",
        "git": checkout_commit(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "packages": {name: _version(name) for name in KEY_PACKAGES},
    }
