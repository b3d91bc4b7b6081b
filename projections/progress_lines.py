"""Live lines every experiment's progress view shares."""

from __future__ import annotations

from rich.markup import escape

from maai.domain.events import ModelAttemptFailed


def _busy(event: ModelAttemptFailed) -> bool:
    return event.error_kind == "rate_limit" or event.status == 503


def attempt_line(event: ModelAttemptFailed) -> str | None:
    """The line for a failed attempt that will be retried, saying how long the run waits;
    None for the last one: the call failed for good, and the run's failure, printed next,
    says why (each failure is printed once)."""
    if event.retry_in_s is None:
        return None
    if _busy(event):
        return (
            f"  [yellow]{escape(event.address)}: {escape(event.message)}; the server is busy:"
            f" waiting {event.retry_in_s:.1f} s, then asking again (attempt {event.attempt})"
            f"[/yellow]"
        )
    return (
        f"  [yellow]{escape(event.address)}: {escape(event.message)}; retrying in "
        f"{event.retry_in_s:.1f} s (attempt {event.attempt})[/yellow]"
    )


class AttemptLines:
    """Failed attempts' lines for one run's progress, each failure printed once: a call
    kept waiting on a busy server (429, 503) prints its first failure, and its later ones
    only after another kind of failure; the wait itself is on the live line (a terminal)."""

    def __init__(self) -> None:
        self._shown: dict[str, tuple[str, int | None]] = {}  # address -> last busy failure

    def line(self, event: ModelAttemptFailed) -> str | None:
        if event.retry_in_s is not None and _busy(event):
            seen = (event.error_kind, event.status)
            if self._shown.get(event.address) == seen:
                return None
            self._shown[event.address] = seen
        else:
            self._shown.pop(event.address, None)
        return attempt_line(event)
