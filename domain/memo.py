"""Results per item of a sequence that grows at its end, remembered.

A run's public history grows one item at a time, and every prompt shows all of it: rendering
it afresh for each prompt costs the whole history each time, the square of the run in all.
``GrowingMemo`` keeps what it computed for the last sequences it saw, so a sequence that
extends one of them costs only its new items. Pure: the result is what computing afresh
would give; only the time differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from maai.canonical import SharedText

T = TypeVar("T")
R = TypeVar("R")


def _concatenated(before: list[R] | None, new: list[R]) -> list[R]:
    return [*before, *new] if before is not None else new


class GrowingMemo(Generic[T, R]):
    """``memo(items)`` is ``[r for item in items for r in per_item(item)]``, remembered for
    the last ``keep`` sequences (a study decides many runs in one process; each sequence
    kept is one run's history, a few hundred kB for a long discussion). ``extend``
    builds the result from the result for a shorter sequence and the new results (by
    default a new list); results are shared between calls, so callers must not change them."""

    def __init__(
        self,
        per_item: Callable[[T], Sequence[R]],
        keep: int = 64,
        extend: Callable[[list[R] | None, list[R]], list[R]] = _concatenated,
    ) -> None:
        self._per_item = per_item
        self._keep = keep
        self._extend = extend
        self._seen: list[tuple[tuple[T, ...], list[R]]] = []

    def __call__(self, items: tuple[T, ...]) -> list[R]:
        best: tuple[tuple[T, ...], list[R]] | None = None
        # Newest first: the longest sequences are usually the newest, so the first that fits
        # is usually the best and the shorter ones are passed over without a comparison (from
        # the oldest, each of the ``keep`` sequences was compared in turn: ``keep`` passes over
        # the items per call). The same sequence asked again (a state's history, which the
        # walk reads at every step) is found by identity at once.
        for seen in reversed(self._seen):
            known = seen[0]
            if known is items:
                return seen[1]
            size = len(known)
            if best is not None and size <= len(best[0]) or size > len(items):
                continue
            # Its last item rules out most other histories at once; then the tuple comparison,
            # which checks identity first, costs a pass over pointers where the items are
            # shared (equal items made anew, as when a history is read back, are compared).
            if size and items[size - 1] != known[-1]:
                continue
            if items[:size] == known:
                best = seen
        if best is not None and len(best[0]) == len(items):
            # Kept under the sequence asked for (equal, not the same object): asked again, it
            # is then found by identity.
            self._seen = [s for s in self._seen if s is not best]
            self._seen.append((items, best[1]))
            return best[1]
        new: list[R] = []
        for item in items[len(best[0]) if best is not None else 0 :]:
            new.extend(self._per_item(item))
        results = self._extend(best[1] if best is not None else None, new)
        self._seen = [s for s in self._seen if s is not best][-(self._keep - 1) :]
        self._seen.append((items, results))
        return results


class SharedLines(list[str]):
    """Lines with their text (joined by newlines) kept as a :class:`SharedText`: the extend
    step of a ``GrowingMemo`` of lines, so that the text of a longer history is the text of
    the shorter one and its new lines, escaped and hashed once (``maai.domain.calls``)."""

    __slots__ = ("shared",)
    shared: SharedText

    @classmethod
    def extended(cls, before: list[str] | None, new: list[str]) -> SharedLines:
        made = cls(before or ())
        list.extend(made, new)
        if not isinstance(before, SharedLines) or not before:
            made.shared = SharedText.of("\n".join(made))
        elif not new:
            made.shared = before.shared
        else:
            made.shared = before.shared.extended("\n" + "\n".join(new))
        return made
