"""Live lines every experiment's progress view shares."""

from __future__ import annotations

from rich.markup import escape

from maai.domain.events import ModelAttemptFailed


def attempt_line(event: ModelAttemptFailed) -> str | None:
    """The line for a failed attempt that will be retried, saying how long the run waits;
    None for the last one: the call failed for good, and the run's failure, printed next,
    says why (each failure is printed once)."""
    if event.retry_in_s is None:
        return None
    what = "waiting" if event.error_kind == "rate_limit" or event.status == 503 else "retrying in"
    return (
        f"  [yellow]{escape(event.address)}: {escape(event.message)}; {what} "
        f"{event.retry_in_s:.1f} s (attempt {event.attempt})[/yellow]"
    )
