"""Linear storage: text and lists a run repeats are stored once, as differences against an
earlier event of the same run (docs/ledger.md, "How a run is stored").

A prompt repeats most of the previous prompt of the same agent (the instructions, the
memory, the whole public history so far), so storing every prompt whole makes a run's size
grow with the square of its length. Instead, in an event of at least ``MIN_EVENT_CHARS``
characters, every string of at least ``MIN_TEXT_CHARS`` characters and every list of at
least ``MIN_LIST_ITEMS`` items is compared with the value last stored at the same place (the
same event type, agent and path in the payload; else the same type and path from any agent):
if most of it is already there, the event stores only the difference.

The stored payload is then the logical payload with those values set to ``null`` and one
more top-level key, ``"$packed"``: a list of ``[path, kind, bases, ops]`` entries.
``kind`` is ``"t"`` for a text (compared line by line) or ``"l"`` for a list (compared item
by item); ``bases`` names the earlier values it is rebuilt from, each as ``[seq, path]``;
``ops`` rebuild the value from the bases' lines or items: ``[start, count]`` copies a run
of them from the first base (``[start, count, k]`` from ``bases[k]``), ``{"+": x}`` adds
new ones (``x`` is text for a text, a list for a list). Bases are named by seq and path, so
the hash chain, which covers the stored payload, covers the bases and everything rebuilt
from them; nothing is stored outside the chain.

The writer checks every list it packs before storing it: the list rebuilt from what is
stored must be the list it was given, type for type (Python's ``1 == 1.0`` would otherwise
let a list item stand for a different one). If it is not, the list is stored whole. A
logical payload may not itself use the key ``"$packed"``.
"""

import marshal
import operator
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from maai.ledger.packed_values import (
    MIN_EVENT_CHARS,
    PACKED_KEY,
    SlotKey,
    Version,
    apply_ops,
    candidates,
    set_path,
    slot_keys,
)

# A value is stored as a difference only when at most this share of it is new.
MAX_NEW_SHARE: Final = 0.5
# Runs whose latest values a writer keeps (one process may write many runs at once).
MAX_RUNS: Final = 64


# ---------------------------------------------------------------------------- differences


def _run_length(new: list[Any], i: int, base: list[Any], j: int) -> int:
    """How many items of ``new`` from ``i`` equal those of ``base`` from ``j`` (>= 1 given
    that the first pair is equal): galloping, then bisecting, on slice comparisons."""
    limit = min(len(new) - i, len(base) - j)
    step = 1
    good = 1
    while good < limit:
        probe = min(limit, good + step)
        if new[i + good : i + probe] == base[j + good : j + probe]:
            good = probe
            step *= 2
        else:
            hi = probe - 1  # new[i+hi] may differ; good < hi + 1
            while good < hi:
                mid = (good + hi + 1) // 2
                if new[i + good : i + mid] == base[j + good : j + mid]:
                    good = mid
                else:
                    hi = mid - 1
            break
    return good


def diff_text(new_lines: list[str], bases: Sequence[Version]) -> tuple[list[Any], int]:
    """Ops rebuilding ``new_lines`` from the lines of one or more bases, and how many
    characters are new. A copy from ``bases[k]`` is ``[start, count, k]`` (``k`` left out
    when 0)."""
    tables = [(base.items(), base.index()) for base in bases]
    ops: list[Any] = []
    added: list[str] = []
    new_chars = 0
    i, n = 0, len(new_lines)
    last_base, after = 0, -1
    while i < n:
        line = new_lines[i]
        best_k, best_j, best_length = -1, -1, 0
        lines_of_last = tables[last_base][0]
        if 0 <= after < len(lines_of_last) and lines_of_last[after] == line:
            best_k, best_j = last_base, after
            best_length = _run_length(new_lines, i, lines_of_last, after)
        else:
            for k, (base_lines, index) in enumerate(tables):
                j = index.get(line, -1)
                if j >= 0:
                    length = _run_length(new_lines, i, base_lines, j)
                    if length > best_length:
                        best_k, best_j, best_length = k, j, length
        if best_k < 0:
            added.append(line)
            new_chars += len(line) + 1
            i += 1
            continue
        if added:
            ops.append({"+": "\n".join(added)})
            added = []
        ops.append([best_j, best_length] if best_k == 0 else [best_j, best_length, best_k])
        i += best_length
        last_base, after = best_k, best_j + best_length
    if added:
        ops.append({"+": "\n".join(added)})
    return ops, new_chars


def diff_list(new: list[Any], base: Version) -> tuple[list[Any], int]:
    """Ops rebuilding ``new`` from the base's items (common head and tail; lists in a run
    grow at the end), and how many items are new."""
    old = base.items()
    most = min(len(new), len(old))
    head = 0 if not new or not old or new[0] != old[0] else _run_length(new, 0, old, 0)
    tail = 0
    if head < most and new[-1] == old[-1]:
        rest = most - head
        tail = 1
        while tail < rest and new[-1 - tail] == old[-1 - tail]:
            tail += 1
    ops: list[Any] = []
    if head:
        ops.append([0, head])
    middle = new[head : len(new) - tail]
    if middle:
        ops.append({"+": middle})
    if tail:
        ops.append([len(old) - tail, tail])
    return ops, len(middle)


def _same_json(rebuilt: list[Any], given: list[Any]) -> bool:
    """Whether a list rebuilt from items matched with Python's ``==`` is the given one as
    JSON too: ``==`` is looser (``1 == 1.0 == True``). marshal (format 0: no references, no
    interning) writes each value's type and value, in C; a difference JSON would not see
    (the order of a dict's keys, ``-0.0``) only means the list is stored whole."""
    if len(rebuilt) == len(given) and all(map(operator.is_, rebuilt, given)):
        return True  # the very same items (shared history items, never changed)
    try:
        return marshal.dumps(rebuilt, 0) == marshal.dumps(given, 0)
    except ValueError:  # a value marshal cannot write (not a plain JSON value): store whole
        return False


def _drop_unused(ops: list[Any], bases: list[Version]) -> tuple[list[Any], list[Version]]:
    """The ops renumbered to name only the bases they copy from."""
    used = sorted({op[2] if len(op) == 3 else 0 for op in ops if isinstance(op, list)})
    if used == list(range(len(bases))):
        return ops, bases
    number = {old: new for new, old in enumerate(used)}
    renumbered = [
        op
        if not isinstance(op, list)
        else [op[0], op[1]]
        if number[op[2] if len(op) == 3 else 0] == 0
        else [op[0], op[1], number[op[2]]]
        for op in ops
    ]
    return renumbered, [bases[k] for k in used]


# ---------------------------------------------------------------------------- writing


@dataclass
class Packer:
    """The writer's side: the latest value of each slot per run, updated once an append
    is committed (a refused append must not leave bases that were never stored)."""

    max_runs: int = MAX_RUNS
    _runs: OrderedDict[str, dict[SlotKey, Version]] = field(default_factory=OrderedDict)

    def pack(
        self,
        run_id: str,
        expected_seq: int,
        types: Sequence[tuple[str, str | None]],
        payloads: Sequence[dict[str, Any]],
        texts: list[str],
        normalized_text: Callable[[Any], str],
        packed: list[int] | None = None,
        sizes: Sequence[int] | None = None,
    ) -> tuple[list[str], Callable[[], None]]:
        """The texts to store for one append (``texts``: each payload's canonical text),
        and the function to call once the append is committed. ``packed``, if given, gets
        the index of each payload stored as differences; ``sizes``, if given, are the
        lengths of the texts (a payload packed needs no more of its text)."""
        known = self._runs.get(run_id, {})
        overlay: dict[SlotKey, Version] = {}
        stored = list(texts)
        lengths = sizes if sizes is not None else [len(text) for text in texts]
        for i, ((type_, agent), payload, length) in enumerate(
            zip(types, payloads, lengths, strict=True)
        ):
            if length < MIN_EVENT_CHARS:
                continue
            seq = expected_seq + i + 1
            entries: list[list[Any]] = []
            for path, value in candidates(payload):
                own, anyone = slot_keys(type_, agent, path)
                version = Version(seq, path, value)
                # The agent's own last value shares its private parts (memory, balance); the
                # last value of anyone shares more of what all see (the public history).
                bases: list[Version] = []
                for key in (own, anyone):
                    base = overlay.get(key) or known.get(key)
                    if base is not None and base.kind == version.kind and base not in bases:
                        bases.append(base)
                overlay[own] = overlay[anyone] = version
                if not bases:
                    continue
                if isinstance(value, str):
                    version.share_lines(bases[0])
                    ops, new = diff_text(version.items(), bases)
                    ops, bases = _drop_unused(ops, bases)
                else:  # lists grow at the end: one base, the one that shares most
                    diffs = [(diff_list(value, base), base) for base in bases]
                    (ops, new), base = min(diffs, key=lambda d: d[0][1])
                    bases = [base]
                    rebuilt = apply_ops("l", ops, bases)
                    if not isinstance(rebuilt, list) or not _same_json(rebuilt, value):
                        continue
                if new <= MAX_NEW_SHARE * len(value):
                    entries.append(
                        [list(path), version.kind, [[b.seq, list(b.path)] for b in bases], ops]
                    )
            if not entries:
                continue
            compact: Any = payload
            for entry in entries:
                compact = set_path(compact, tuple(entry[0]), None)
            compact = {**compact, PACKED_KEY: entries}
            stored[i] = normalized_text(compact)
            if packed is not None:
                packed.append(i)

        def commit() -> None:
            slots = self._runs.setdefault(run_id, {})
            slots.update(overlay)
            self._runs.move_to_end(run_id)
            while len(self._runs) > self.max_runs:
                self._runs.popitem(last=False)

        return stored, commit
