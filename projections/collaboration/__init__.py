"""The collaboration game's read models (placeholder until its views land)."""

from __future__ import annotations

from typing import Any


class _Progress:
    def lines(self, event: Any, state: Any) -> list[str]:
        return []


class CollaborationViews:
    def progress(self, config: Any) -> _Progress:
        return _Progress()


VIEWS = CollaborationViews()
