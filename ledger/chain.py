"""The hash chain's rules, in one place: :meth:`EventStore.verify_chain` feeds it raw rows,
``maai verify`` (``runtime.verify.ChainCheck``) the events it streams, and both report what
it finds, so the two cannot drift apart.

A run's chain holds when its events are seqs ``1..head`` without gaps, each ``prev_hash`` is
the previous event's ``hash`` (:data:`GENESIS_HASH` for seq 1), each ``hash`` is the hash of
the event's stored fields, and nothing is stored beyond the head. The first failure is the
finding (see :meth:`ChainReport.raise_if_broken`)."""

from __future__ import annotations

from collections.abc import Callable

from maai.ledger.envelope import GENESIS_HASH, ChainReport
from maai.ledger.errors import LedgerError


class ChainChecker:
    """Fed a run's stored events in seq order, row by row, until it finds a break.

    How a row's hash is checked is the caller's (the stored text hashed, or the parsed
    payload re-encoded): it hands a ``hash_holds`` callable, which is called only once the
    row's seq and link hold, so that a row is never hashed for nothing."""

    __slots__ = ("run_id", "head", "checked", "broken", "_prev_hash")

    def __init__(self, run_id: str, head: int) -> None:
        self.run_id = run_id
        self.head = head
        self.checked = 0
        """Events found to hold so far (they are seqs ``1..checked``)."""
        self.broken: tuple[int, str] | None = None
        """``(first bad seq, reason)`` once a break is found."""
        self._prev_hash = GENESIS_HASH

    @property
    def holds(self) -> bool:
        """Whether no break has been found so far."""
        return self.broken is None

    def add(self, seq: int, prev_hash: str, hash: str, hash_holds: Callable[[], bool]) -> bool:
        """Check the next stored event up to the head; whether the chain still holds.

        ``hash_holds()`` says whether ``hash`` is the hash of the event's stored fields;
        what it raises (a :class:`LedgerError`, ``ValueError`` or ``TypeError``) means the
        fields cannot be hashed, which is a break too."""
        expected = self.checked + 1
        if seq != expected:
            return self._break(expected, f"event {expected} is missing (next is {seq})")
        if prev_hash != self._prev_hash:
            return self._break(seq, "prev_hash does not match the previous event's hash")
        try:
            holds = hash_holds()
        except (LedgerError, ValueError, TypeError) as exc:
            return self._break(seq, f"stored fields cannot be hashed: {exc}")
        if not holds:
            return self._break(seq, "stored fields do not match the stored hash")
        self._prev_hash = hash
        self.checked = expected
        return True

    def unreadable(self, seq: int, reason: str) -> None:
        """The event at ``seq`` could not be read as an event (a
        :class:`~ledger.errors.ChainBrokenError` from the read): a break there."""
        self._break(seq, reason)

    def end(self, last_stored: Callable[[], int | None]) -> None:
        """No event up to the head is left to add. Every one must have been; then nothing
        may be stored beyond the head: ``last_stored()`` (asked only then) names the run's
        last stored seq, ``None`` for none."""
        if self.broken is not None:
            return
        if self.checked != self.head:
            expected = self.checked + 1
            self._break(expected, f"event {expected} is missing (head is {self.head})")
            return
        last = last_stored()
        if last is not None and last > self.head:
            # Appends stop at a stored seq beyond the head; name where the history went on.
            self._break(
                self.head + 1, f"events up to seq {last} are stored beyond the head {self.head}"
            )

    def report(self) -> ChainReport:
        """What was found: the first break, or (once :meth:`end` found none) that the whole
        chain holds."""
        if self.broken is None:
            return ChainReport(
                run_id=self.run_id, ok=True, events_checked=self.checked, head_seq=self.head
            )
        seq, reason = self.broken
        return ChainReport(
            run_id=self.run_id,
            ok=False,
            events_checked=self.checked,
            head_seq=self.head,
            first_bad_seq=seq,
            reason=reason,
        )

    def _break(self, seq: int, reason: str) -> bool:
        self.broken = (seq, reason)
        return False
