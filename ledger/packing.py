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

from __future__ import annotations

import bisect
import itertools
import marshal
import operator
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from maai.canonical import canonical_json

PACKED_KEY: Final = "$packed"
MIN_EVENT_CHARS: Final = 4096
MIN_TEXT_CHARS: Final = 1024
MIN_LIST_ITEMS: Final = 8
# A value is stored as a difference only when at most this share of it is new.
MAX_NEW_SHARE: Final = 0.5
# Runs whose latest values a writer keeps (one process may write many runs at once).
MAX_RUNS: Final = 64

PathKey = tuple[str | int, ...]
SlotKey = tuple[str, str | None, PathKey]
_ANY_AGENT: Final = "\x00any"  # never an agent name: names cannot contain NUL


class PackingError(ValueError):
    """A packed event that cannot be rebuilt (its base is missing or its ops are out of
    range): the ledger is damaged, or was written by a broken writer."""


@dataclass(slots=True)
class Version:
    """A value as a reader rebuilds it, with where it is stored (seq, path)."""

    seq: int
    path: PathKey
    value: str | list[Any]
    _items: list[Any] | None = None
    _index: dict[str, int] | None = None
    slots: int = 0  # how many slots name this version as their latest (reader's bookkeeping)
    # A text whose first lines are a base's (the writer's): (base, how many lines), until
    # its index is derived from the base's.
    _prefix_of: tuple[Version, int] | None = field(default=None, compare=False, repr=False)
    _ends: list[int] | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> str:
        return "t" if isinstance(self.value, str) else "l"

    def items(self) -> list[Any]:
        if self._items is None:
            value = self.value
            self._items = value.split("\n") if isinstance(value, str) else value
        return self._items

    def index(self) -> dict[str, int]:
        """Each line's first position (texts only)."""
        if self._index is None:
            lines = self.items()
            derived = self._derived_index(lines)
            if derived is None:
                # Built from the last line back, so that a line's first position is the one
                # left: in C, where a loop of setdefault calls cost a tenth of an append.
                derived = dict(zip(reversed(lines), range(len(lines) - 1, -1, -1), strict=True))
            self._index = derived
        return self._index

    def _derived_index(self, lines: list[Any]) -> dict[str, int] | None:
        """The index from the base's, where this text's first lines are the base's and
        little differs after them: a copy of the base's (in C) less the lines only its rest
        has, plus this text's own rest, instead of indexing every line again (a prompt
        grows with the run, its rest does not)."""
        prefix_of, self._prefix_of = self._prefix_of, None
        if prefix_of is None:
            return None
        base, shared = prefix_of
        base_lines, base_index = base._items, base._index
        if base_lines is None or base_index is None:
            return None
        if (len(base_lines) - shared) + (len(lines) - shared) > len(lines) // 4:
            return None
        index = base_index.copy()
        for line in base_lines[shared:]:
            if index.get(line, -1) >= shared:  # first seen past the shared lines
                del index[line]
        for position in range(shared, len(lines)):
            index.setdefault(lines[position], position)
        return index

    def share_lines(self, base: Version) -> None:
        """Take this text's lines from the base's as far as the two texts agree, splitting
        only the rest: the lines are then the base's own objects (compared by identity
        when runs of lines are matched), and the index can be derived from the base's."""
        text, base_text = self.value, base.value
        if self._items is not None or not isinstance(text, str) or not isinstance(base_text, str):
            return
        base_lines = base.items()
        agreed = _common_prefix_length(text, base_text)
        ends = base.line_ends()
        shared = bisect.bisect_left(ends, agreed)  # lines whose ends both texts share
        start = ends[shared - 1] + 1 if shared else 0
        rest = text[start:].split("\n")
        self._items = [*base_lines[:shared], *rest]
        self._ends = [*ends[:shared], *_line_ends(rest, start)]
        self._prefix_of = (base, shared)

    def line_ends(self) -> list[int]:
        """Where each line's newline is (the last line's: the text's length); texts only."""
        if self._ends is None:
            self._ends = _line_ends(self.items(), 0)
        return self._ends


def _line_ends(lines: list[str], start: int) -> list[int]:
    """Where the newline after each of ``lines`` is, in a text where they begin at ``start``."""
    lengths = itertools.accumulate(map(len, lines))
    return [start + length + i for i, length in enumerate(lengths)]


_FIRST_PROBE: Final = 4096


def _common_prefix_length(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from the start: galloping, then bisecting,
    on slice comparisons (in C)."""
    most = min(len(a), len(b))
    agreed, step = 0, _FIRST_PROBE
    while agreed < most:
        probe = min(most, agreed + step)
        if a[agreed:probe] != b[agreed:probe]:
            break
        agreed, step = probe, step * 2
    else:
        return most
    # a[:agreed] == b[:agreed], a[:probe] != b[:probe]
    while probe - agreed > 1:
        middle = (agreed + probe) // 2
        if a[agreed:middle] == b[agreed:middle]:
            agreed = middle
        else:
            probe = middle
    return agreed


def candidates(payload: dict[str, Any]) -> Iterator[tuple[PathKey, str | list[Any]]]:
    """The values of a payload that may be stored as differences: long strings and long
    lists (not looked into), found in dicts and short lists."""
    stack: list[tuple[PathKey, Any]] = [((), payload)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                # A key that is not a string is stored as one (JSON): a path naming it
                # would not be found again in the stored payload, so what is below stays.
                if not isinstance(key, str) or (path == () and key == PACKED_KEY):
                    continue
                stack.append(((*path, key), item))
        elif isinstance(value, str):
            if len(value) >= MIN_TEXT_CHARS:
                yield path, value
        elif isinstance(value, list):
            if len(value) >= MIN_LIST_ITEMS:
                yield path, value
            else:
                stack.extend(((*path, i), item) for i, item in enumerate(value))


def long_values(payload: dict[str, Any]) -> list[tuple[PathKey, str | list[Any]]]:
    """What :func:`candidates` yields, in another order, found with less work: a reader
    remembers each value by its path (no two share one), so the order makes no difference
    to it; a writer's packing follows the order of ``candidates``. Scalars are looked at
    where they are found instead of being stacked one by one."""
    found: list[tuple[PathKey, str | list[Any]]] = []
    stack: list[tuple[PathKey, dict[str, Any] | list[Any]]] = [((), payload)]
    while stack:
        path, container = stack.pop()
        if isinstance(container, dict):
            items: Any = container.items()
        else:  # a short list: its items are looked into
            items = enumerate(container)
        for key, item in items:
            if isinstance(item, str):
                if len(item) < MIN_TEXT_CHARS:
                    continue
            elif isinstance(item, dict):
                pass
            elif not isinstance(item, list):
                continue
            # A key that is not a string is stored as one (JSON): a path naming it would
            # not be found again in the stored payload, so what is below stays.
            if isinstance(container, dict) and (
                not isinstance(key, str) or (path == () and key == PACKED_KEY)
            ):
                continue
            if isinstance(item, str) or (isinstance(item, list) and len(item) >= MIN_LIST_ITEMS):
                found.append(((*path, key), item))
            else:
                stack.append(((*path, key), item))
    return found


def slot_keys(type_: str, agent: str | None, path: PathKey) -> tuple[SlotKey, SlotKey]:
    """The value's own slot (same type, agent and path) and the any-agent slot."""
    return (type_, agent, path), (type_, _ANY_AGENT, path)


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


def apply_ops(kind: str, ops: list[Any], bases: Sequence[Version]) -> str | list[Any]:
    """Rebuild a value from ops and its bases; :class:`PackingError` if they do not fit."""
    return rebuild(kind, ops, bases)[0]


def rebuild(
    kind: str, ops: list[Any], bases: Sequence[Version]
) -> tuple[str | list[Any], list[Any]]:
    """:func:`apply_ops`, with the value's lines (a text) or items (a list): kept, they spare
    splitting the text again when it serves as a base."""
    if not bases or any(kind != base.kind for base in bases):
        raise PackingError(f"a {kind!r} value needs bases of its kind")
    all_items = [base.items() for base in bases]
    out: list[Any] = []
    for op in ops:
        if isinstance(op, dict):
            added = op.get("+")
            if kind == "t" and isinstance(added, str):
                out.extend(added.split("\n"))
            elif kind == "l" and isinstance(added, list):
                out.extend(added)
            else:
                raise PackingError(f"bad added part {canonical_json(op)[:60]}")
        elif (
            isinstance(op, list)
            and 2 <= len(op) <= 3
            and all(type(x) is int for x in op)
            and (len(op) == 2 or 0 <= op[2] < len(all_items))
            and op[0] >= 0
            and op[1] >= 1
            and op[0] + op[1] <= len(all_items[op[2] if len(op) == 3 else 0])
        ):
            items = all_items[op[2] if len(op) == 3 else 0]
            out.extend(items[op[0] : op[0] + op[1]])
        else:
            raise PackingError(f"bad copy {canonical_json(op)[:60]}")
    return ("\n".join(out) if kind == "t" else out), out


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


def _set(payload: Any, path: PathKey, value: Any) -> Any:
    """A copy of ``payload`` with ``value`` at ``path`` (copying only along the path)."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(payload, dict) and isinstance(key, str) and key in payload:
        copied: dict[Any, Any] | list[Any] = dict(payload)
    elif isinstance(payload, list) and type(key) is int and 0 <= key < len(payload):
        copied = list(payload)
    else:
        raise PackingError(f"path {list(path)} is not in the payload")
    copied[key] = _set(payload[key], rest, value)  # type: ignore[index]
    return copied


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
                compact = _set(compact, tuple(entry[0]), None)
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


# ---------------------------------------------------------------------------- reading


def unpack_payload(
    stored: dict[str, Any],
    base_of: Callable[[int, PathKey], Version],
    made: dict[int, list[Any]] | None = None,
) -> dict[str, Any]:
    """The logical payload of a stored one (returned as is when it is not packed). ``made``
    collects the lines or items of each rebuilt value, by the value's id."""
    entries = stored.get(PACKED_KEY)
    if entries is None:
        return stored
    if not isinstance(entries, list):
        raise PackingError(f"{PACKED_KEY} is not a list")
    logical: Any = {k: v for k, v in stored.items() if k != PACKED_KEY}
    for entry in entries:
        try:
            path, kind, places, ops = entry
            bases = [base_of(seq, tuple(place)) for seq, place in places]
        except (TypeError, ValueError):
            raise PackingError(f"bad {PACKED_KEY} entry {canonical_json(entry)[:80]}") from None
        if not isinstance(ops, list) or kind not in ("t", "l"):
            raise PackingError(f"bad {PACKED_KEY} entry {canonical_json(entry)[:80]}")
        value, items = rebuild(kind, ops, bases)
        if made is not None:
            made[id(value)] = items
        logical = _set(logical, tuple(path), value)
    return logical  # type: ignore[no-any-return]


Fetch = Callable[[int], dict[str, Any]]
"""The payload of a stored event by seq, as stored."""


class Unpacker:
    """The reader's side, for one pass over a run in seq order: keeps the latest value of
    each slot (what the writer diffed against) and fetches an older base when one is asked
    for (a read that starts in the middle of a run)."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._latest: dict[SlotKey, Version] = {}
        self._by_place: dict[tuple[int, PathKey], Version] = {}

    def unpack(
        self, seq: int, type_: str, agent: str | None, stored: dict[str, Any], size: int
    ) -> dict[str, Any]:
        """The logical payload of the event at ``seq`` (``size``: its stored text's length),
        remembering its long values as bases for the events after it."""
        packed = PACKED_KEY in stored
        made: dict[int, list[Any]] = {}
        logical = unpack_payload(stored, self._base, made) if packed else stored
        if packed or size >= MIN_EVENT_CHARS:
            self._remember(seq, type_, agent, logical, made)
        return logical

    def _remember(
        self,
        seq: int,
        type_: str,
        agent: str | None,
        logical: dict[str, Any],
        made: dict[int, list[Any]],
    ) -> None:
        for path, value in long_values(logical):
            version = Version(seq, path, value, made.get(id(value)))
            self._by_place[(seq, path)] = version
            for key in slot_keys(type_, agent, path):
                old = self._latest.get(key)
                if old is not None:
                    old.slots -= 1
                    if old.slots == 0:
                        self._by_place.pop((old.seq, old.path), None)
                self._latest[key] = version
                version.slots += 1

    def _base(self, seq: int, path: PathKey) -> Version:
        found = self._by_place.get((seq, path))
        if found is not None:
            return found
        return self._fetch_base(seq, path)

    def _fetch_base(self, seq: int, path: PathKey) -> Version:
        """Rebuild an older value: follow its chain of bases back to values this reader has
        (or to one stored whole), then rebuild forwards. Iterative: chains can be long."""
        rebuilt: dict[tuple[int, PathKey], Version] = {}

        def known(s: int, p: PathKey) -> Version | None:
            return self._by_place.get((s, p)) or rebuilt.get((s, p))

        fetched: dict[int, dict[str, Any]] = {}
        todo: list[int] = [seq]
        while todo:
            current = todo[-1]
            if current not in fetched:
                fetched[current] = self._fetch(current)
            stored = fetched[current]
            entries = stored.get(PACKED_KEY) or []
            missing = [
                seq_
                for entry in entries
                if isinstance(entry, list) and len(entry) == 4 and isinstance(entry[2], list)
                for seq_, place in entry[2]
                if known(seq_, tuple(place)) is None
            ]
            if missing:
                if missing[0] >= current or missing[0] in todo:
                    raise PackingError(f"seq {current} names a base at seq {missing[0]}")
                todo.append(missing[0])
                continue
            todo.pop()

            def base_of(s: int, p: PathKey) -> Version:
                version = known(s, p)
                if version is None:
                    raise PackingError(f"the base at seq {s}, path {list(p)} is missing")
                return version

            logical = unpack_payload(stored, base_of)
            for p, value in candidates(logical):
                rebuilt[(current, p)] = Version(current, p, value)
        try:
            return rebuilt[(seq, path)] if (seq, path) in rebuilt else self._by_place[(seq, path)]
        except KeyError:
            raise PackingError(f"seq {seq} has no long value at path {list(path)}") from None


__all__ = [
    "MIN_EVENT_CHARS",
    "PACKED_KEY",
    "Packer",
    "PackingError",
    "Unpacker",
    "Version",
    "apply_ops",
    "candidates",
    "long_values",
    "diff_list",
    "diff_text",
    "unpack_payload",
]
