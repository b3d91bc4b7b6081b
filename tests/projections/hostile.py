"""A run whose participant wrote markup and URLs: what a report must show as text."""

from __future__ import annotations

from maai.domain.frohlich.events import StatementMade
from maai.projections.history import History, history_from_events

HOSTILE = (
    '<script>window.__pwned = 1</script><img src="https://evil.example/x.png" '
    'onerror="window.__pwned = 2"> see http://example.org & "quotes" '
    '<a href="javascript:window.__pwned = 3">help</a> [more](javascript:window.__pwned=4)'
)


def planted(golden: History) -> History:
    """The golden run with the first statement replaced by markup and a URL."""
    events = [entry.event for entry in golden.entries]
    index = next(i for i, e in enumerate(events) if isinstance(e, StatementMade))
    events[index] = events[index].model_copy(update={"text": HOSTILE})
    return history_from_events(events, "planted-run")
