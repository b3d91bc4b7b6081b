"""Failed attempts in a run's progress (docs/providers.md, "Retries"): each failure printed
once; a call kept waiting on a busy server prints its first failure, not one per attempt."""

from __future__ import annotations

from maai.domain.events import ModelAttemptFailed
from maai.projections.progress_lines import AttemptLines


def failed(
    attempt: int, kind: str = "rate_limit", status: int | None = 429, retry_in_s: float | None = 20
) -> ModelAttemptFailed:
    return ModelAttemptFailed(
        address="p2/Bob/r3/statement/1",
        agent="Bob",
        attempt=attempt,
        error_kind=kind,
        status=status,
        message=f"Rate limit reached (try {attempt})",
        retry_in_s=retry_in_s,
        retryable=True,
    )


def test_a_busy_streak_prints_its_first_failure_and_again_after_another_kind() -> None:
    lines = AttemptLines()
    shown = [
        lines.line(failed(1)),
        lines.line(failed(2)),  # the same server, still busy
        lines.line(failed(3, "server_error", 503)),  # overloaded: another busy status
        lines.line(failed(4, "server_error", 503)),
        lines.line(failed(5, "timeout", None, retry_in_s=1.0)),  # not busy: each printed
        lines.line(failed(6, "timeout", None, retry_in_s=2.0)),
        lines.line(failed(7)),  # busy again after something else
        lines.line(failed(8, retry_in_s=None)),  # the last: the run's failure says it
    ]
    printed = [i + 1 for i, line in enumerate(shown) if line is not None]
    assert printed == [1, 3, 5, 6, 7]
    first = shown[0]
    assert first is not None and first.count("p2/Bob/r3/statement/1") == 1
    assert "the server is busy: waiting 20.0 s, then asking again (attempt 1)" in first
    assert shown[4] is not None and "retrying in 1.0 s (attempt 5)" in shown[4]


def test_each_call_has_its_own_streak() -> None:
    lines = AttemptLines()
    other = failed(1).model_copy(update={"address": "p2/Ann/r3/statement/1", "agent": "Ann"})
    assert lines.line(failed(1)) is not None
    assert lines.line(other) is not None
    assert lines.line(failed(2)) is None
