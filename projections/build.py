"""Which build of maai recorded a run, as its ``run.started`` says (``provenance``,
maai.runtime.provenance): a run recorded by a modified build (a checkout with uncommitted
changes, ``provenance.git.dirty``) was made by code that no commit holds, so ``show``,
``verify`` and the report name it (docs/ledger.md, "Provenance")."""

from __future__ import annotations

from typing import Any

from maai.domain.events import RunStarted


def modified_build(started: RunStarted | None) -> str | None:
    """A sentence naming the modified build that recorded the run; ``None`` for a clean
    build, an installed package, or a run recorded before provenance was kept."""
    return modified_build_of(started.provenance if started is not None else None)


def modified_build_of(provenance: object) -> str | None:
    """:func:`modified_build` from a ``run.started``'s ``provenance`` as stored (a reader
    that does not decode the event, as ``maai view``, passes the payload's field)."""
    git = provenance.get("git") if isinstance(provenance, dict) else None
    if not isinstance(git, dict) or git.get("dirty") is not True:
        return None
    assert isinstance(provenance, dict)
    commit = str(git.get("commit") or "")[:12] or "an unknown commit"
    return (
        f"recorded by a modified build: maai {provenance.get('maai', 'unknown')} from commit "
        f"{commit} with uncommitted changes (its code is not the commit's)"
    )


def build_of(started: RunStarted | None) -> str:
    """The build that recorded the run, in a few words, for a report's facts."""
    modified = modified_build(started)
    if modified is not None:
        return modified
    provenance: Any = started.provenance if started is not None else None
    if not isinstance(provenance, dict):
        return "not recorded"
    git = provenance.get("git")
    commit = f", commit {str(git.get('commit'))[:12]}" if isinstance(git, dict) else ""
    return f"maai {provenance.get('maai', 'unknown')}{commit}"
