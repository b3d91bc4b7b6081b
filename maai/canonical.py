"""The one canonical JSON of maai: what the hash chain and request hashes are computed over.

``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
allow_nan=False)``, built once on the json module's C encoder. A leaf module: the ledger and
the domain both import it, and it imports nothing of theirs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

_str = json.encoder.encode_basestring
json_string = _str
"""A str as JSON text, exactly as ``json.dumps(ensure_ascii=False)`` writes it."""


def _unserializable(value: object) -> Any:
    raise TypeError(f"an object of type {type(value).__name__} is not JSON")


_reference_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
# The C encoder that json.dumps uses, built once: calling it directly skips per-call set-up
# (about a quarter of the time for a typical payload). markers=None turns off the circular
# reference check, whose shared dict would not be thread-safe; a cycle ends in RecursionError.
# c_make_encoder and scan_once are the json module's own (undocumented, untyped) C parts.
_make_encoder: Callable[..., Callable[[Any, int], Sequence[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_c_encoder = (
    _make_encoder(None, _unserializable, _str, None, ":", ",", True, False, False)
    if _make_encoder is not None
    else None
)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value``: what ``json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False, allow_nan=False)`` returns (no normalization;
    see ``maai.ledger.envelope.normalize_json``)."""
    if _c_encoder is None or isinstance(value, str):
        return _reference_encoder.encode(value)
    return "".join(_c_encoder(value, 0))


class _Frozen:
    """What :class:`FrozenJson` and :class:`FrozenJsonList` share: their canonical JSON is
    written once and kept; any change raises ``TypeError``; copies are the object itself."""

    __slots__ = ()
    _canonical: str

    def canonical(self) -> str:
        try:
            return self._canonical
        except AttributeError:
            # The slot is each subclass's (a slot here would clash with dict's and list's).
            self._canonical = canonical_json_shared(self._plain())  # type: ignore[misc]
            return self._canonical

    def _plain(self) -> dict[str, Any] | list[Any]:
        raise NotImplementedError  # each kind gives its builtin copy

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        raise TypeError(f"a {type(self).__name__} cannot be changed")

    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self

    def __reduce__(self) -> tuple[type[Any], tuple[Any]]:
        return type(self), (self._plain(),)


def is_shared(value: object) -> bool:
    """Whether ``value`` keeps its canonical JSON text (:class:`FrozenJson`,
    :class:`FrozenJsonList`, :class:`JsonString`): :func:`canonical_json_shared` reuses it."""
    return isinstance(value, _Frozen)


class FrozenJson(_Frozen, dict[str, Any]):
    """A JSON object that is never changed once made: a public-history item that hundreds
    of requests carry, its text written once."""

    __slots__ = ("_canonical",)

    def _plain(self) -> dict[str, Any]:
        return dict(self)

    def keep_canonical(self, text: str) -> None:
        """Keep ``text`` as this object's canonical JSON: for a caller that has just written
        it (``ModelRequest.request_hash``); it must be exactly ``canonical_json(self)``."""
        self._canonical = text

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _Frozen._refuse
    __ior__ = _Frozen._refuse  # type: ignore[assignment]


class _Grown:
    """A text that is an earlier one with a piece put in before its last ``close``
    characters, written out only when asked for: a reader that needs only the digests of a
    growing text (``verify`` on request hash version 2) never copies it whole, and one that
    asks for each version in turn copies each once, as when it was written at once. Once
    written, the text no longer holds on to the earlier one."""

    __slots__ = ("_before", "_piece", "_close", "_text")

    def __init__(
        self, text: str | None, close: str = "", before: _Grown | None = None, piece: str = ""
    ) -> None:
        self._text = text
        self._close = close
        self._before = before
        self._piece = piece

    def text(self) -> str:
        if self._text is not None:
            return self._text
        pieces: list[str] = []
        node: _Grown = self
        while node._text is None:  # iteratively: a chain may be thousands long
            pieces.append(node._piece)
            assert node._before is not None  # the first of a chain is made with its text
            node = node._before
        pieces.reverse()
        known = node._text
        self._text = known[: len(known) - len(self._close)] + "".join(pieces) + self._close
        self._before = None
        return self._text


class FrozenJsonList(_Frozen, list[Any]):
    """A JSON array that is never changed once made, whose canonical text is built from
    that of the array it extends: a history of a thousand items, carried by one request
    after another, is written out once in all rather than once per request (and not at all
    where only its digest is asked for)."""

    __slots__ = ("_canonical", "_grown", "_open_sha", "_sha256")
    _grown: _Grown
    _open_sha: Any  # hashlib's running sha256 (its type is private)

    @classmethod
    def extended(cls, before: FrozenJsonList | None, new: list[Any]) -> FrozenJsonList:
        made = cls(before or ())
        list.extend(made, new)
        added = ",".join(canonical_json_shared(item) for item in new)
        if before is None or not before:
            made._grown = _Grown("[" + added + "]", "]")
            made._open_sha = hashlib.sha256(("[" + added).encode())
        elif not new:
            made._grown = before._text_grown()
            made._open_sha = before._running_sha()
        else:
            made._grown = _Grown(None, "]", before._text_grown(), "," + added)
            made._open_sha = before._running_sha().copy()
            made._open_sha.update(("," + added).encode())
        return made

    def _text_grown(self) -> _Grown:
        try:
            return self._grown
        except AttributeError:  # not made by ``extended``: its text is written whole
            self._grown = _Grown(self.canonical(), "]")
            return self._grown

    def canonical(self) -> str:
        try:
            return self._grown.text()
        except AttributeError:
            return super().canonical()

    def _running_sha(self) -> Any:
        """sha256 state over the canonical text without its closing bracket: what a longer
        list built from this one goes on from."""
        try:
            return self._open_sha
        except AttributeError:
            self._open_sha = hashlib.sha256(self.canonical()[:-1].encode())
            return self._open_sha

    def sha256(self) -> str:
        """Hex sha256 of the canonical JSON (UTF-8): its new items' cost only, for a list made
        by :meth:`extended` (request hash v2, ``maai.domain.calls``)."""
        try:
            return self._sha256
        except AttributeError:
            final = self._running_sha().copy()
            final.update(b"]")
            self._sha256: str = final.hexdigest()
            return self._sha256

    def _plain(self) -> list[Any]:
        return list(self)

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = _Frozen._refuse
    sort = reverse = _Frozen._refuse  # type: ignore[assignment]
    __iadd__ = __imul__ = _Frozen._refuse  # type: ignore[assignment]


class SharedText:
    """A text that grows at its end and that many requests carry (a run's public history as
    one language renders it), with its JSON string body and its sha256 kept: a longer text
    made by :meth:`extended` escapes and hashes only what it adds. Never changed once made."""

    __slots__ = ("text", "_json_body", "_sha", "_sha256")

    def __init__(self, text: str, json_body: _Grown, sha: Any) -> None:
        self.text = text
        self._json_body = json_body  # json_string(text) without its quotes, when asked for
        self._sha = sha  # sha256 state over text's UTF-8 bytes

    @classmethod
    def of(cls, text: str) -> SharedText:
        return cls(text, _Grown(_str(text)[1:-1]), hashlib.sha256(text.encode()))

    @property
    def json_body(self) -> str:
        """``json_string(text)`` without its quotes: escaped once per piece added."""
        return self._json_body.text()

    def extended(self, more: str) -> SharedText:
        """This text followed by ``more``: costs ``more``'s length (and a copy of the text)."""
        if not more:
            return self
        sha = self._sha.copy()
        sha.update(more.encode())
        body = _Grown(None, "", self._json_body, _str(more)[1:-1])
        return SharedText(self.text + more, body, sha)

    def __copy__(self) -> SharedText:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedText:
        return self  # never changed: a copy would only cost the text again

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return SharedText.of, (self.text,)  # a hash state cannot be pickled; it is remade

    def sha256(self) -> str:
        """Hex sha256 of the text's UTF-8 bytes."""
        try:
            return self._sha256
        except AttributeError:
            self._sha256: str = self._sha.hexdigest()
            return self._sha256


class JsonString(_Frozen):
    """A JSON string written before: :func:`canonical_json_shared` puts its text in as it is
    (a request's input pieced together from its own text and a :class:`SharedText`'s kept
    JSON body)."""

    __slots__ = ("_canonical",)

    def __init__(self, canonical: str) -> None:
        self._canonical = canonical


class WithShared(dict[str, Any]):
    """A JSON object known to hold :class:`FrozenJson` or :class:`FrozenJsonList` parts:
    serialized with :func:`canonical_json_shared`. Other values take the C encoder, which
    is faster for small objects than looking for shared parts would be."""

    __slots__ = ()


def canonical_json_of(value: Any) -> str:
    """:func:`canonical_json_shared` for a :class:`WithShared` object, else
    :func:`canonical_json`: the same text either way."""
    if type(value) is WithShared:
        return canonical_json_shared(value)
    return canonical_json(value)


Memo = dict[int, tuple[object, str]]
"""Texts of dicts already written, by ``id`` (the dict is kept beside its text, so that its
id is not reused); for one pass over values nothing changes meanwhile."""


def canonical_json_shared(value: Any, memo: Memo | None = None) -> str:
    """:func:`canonical_json` of ``value``, reusing the kept text of the
    :class:`FrozenJson` and :class:`FrozenJsonList` objects in it (in dicts, and in lists
    that hold one): a request that carries a long history then costs its new items only.
    Same text, byte for byte. ``memo``: the texts of dicts already written in a pass over
    many values that share them (the items of lists rebuilt from a ledger)."""
    if isinstance(value, _Frozen):
        return value.canonical()
    if isinstance(value, dict):
        if not all(type(key) is str for key in value):
            return canonical_json(value)
        return (
            "{"
            + ",".join(
                _str(key) + ":" + canonical_json_shared(value[key], memo) for key in sorted(value)
            )
            + "}"
        )
    if isinstance(value, list | tuple):
        if memo is not None and len(value) >= _MEMO_MIN_ITEMS:
            return "[" + ",".join([_remembered(item, memo) for item in value]) + "]"
        if any(isinstance(item, FrozenJson) for item in value):
            return "[" + ",".join(canonical_json_shared(item) for item in value) + "]"
    return canonical_json(value)


_MEMO_MIN_ITEMS = 8


def _remembered(item: Any, memo: Memo) -> str:
    if not isinstance(item, dict):
        return canonical_json_shared(item)
    known = memo.get(id(item))
    if known is not None and known[0] is item:
        return known[1]
    text = canonical_json_shared(item)
    memo[id(item)] = (item, text)
    return text
