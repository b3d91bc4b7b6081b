"""The event envelope: what an append takes, what a read gives back, and the hash chain.

Every stored event carries ``hash = sha256(canonical JSON of its envelope)``, and the envelope
includes the previous event's hash, so changing, removing or reordering any stored event
breaks the chain from that event on.

Canonical JSON is ``json.dumps(obj, sort_keys=True, separators=(",", ":"),
ensure_ascii=False, allow_nan=False)`` over the envelope fields ``run_id, seq, type,
schema_version, payload, agent, recorded_at, prev_hash``; ``recorded_at`` is the ISO 8601 text
of a UTC time with microseconds (``2025-01-31T12:00:00.123456+00:00``).

Payloads are normalized *before* they are hashed and stored, so that what a reader gets back
from either database re-hashes to the stored hash and equals what the writer got back from
``append``:

- anything json.dumps would coerce is coerced (tuples become lists, keys become strings);
- a float whose shortest repr uses a positive exponent (``1e+16``: every such float is an
  integer) becomes that int, and ``-0.0`` becomes ``0.0``. PostgreSQL's JSONB keeps numbers as
  ``numeric`` and prints them back without exponent or negative zero, so these are the only
  floats whose Python type or sign would otherwise change on the way through it;
- NaN and infinities, NUL characters (JSONB refuses them) and lone surrogates (not UTF-8) are
  refused with :class:`~ledger.errors.InvalidEventError`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, NamedTuple

from pydantic import BaseModel, ConfigDict, PrivateAttr

from maai.canonical import canonical_json, json_string
from maai.ledger.errors import ChainBrokenError, InvalidEventError

_str = json_string


GENESIS_HASH: Final[str] = "0" * 64
"""The ``prev_hash`` of the first event (seq 1) of every run."""

RUN_ID_PATTERN: Final[str] = r"^[A-Za-z0-9][A-Za-z0-9._:+@=-]{0,127}$"
_RUN_ID_RE: Final = re.compile(RUN_ID_PATTERN)


def format_recorded_at(moment: datetime) -> str:
    """The exact text that is hashed for ``recorded_at``: UTC, microseconds, ``+00:00``."""
    if moment.tzinfo is None:
        raise ValueError("recorded_at must be timezone-aware")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def envelope_json(
    *,
    run_id: str,
    seq: int,
    type: str,
    schema_version: int,
    payload_json: str,
    agent: str | None,
    recorded_at: str,
    prev_hash: str,
) -> str:
    """Canonical JSON of an envelope, given the payload's canonical text.

    Equal, byte for byte, to ``canonical_json`` of the envelope as a dict (a test checks
    this), but splices the payload text in instead of serializing the payload a second time:
    that halves the cost of hashing large payloads.
    """
    # encode_basestring is exactly how json.dumps(ensure_ascii=False) writes a str.
    return (
        '{"agent":'
        + ("null" if agent is None else _str(agent))
        + ',"payload":'
        + payload_json
        + ',"prev_hash":'
        + _str(prev_hash)
        + ',"recorded_at":'
        + _str(recorded_at)
        + ',"run_id":'
        + _str(run_id)
        + ',"schema_version":'
        + int.__repr__(schema_version)
        + ',"seq":'
        + int.__repr__(seq)
        + ',"type":'
        + _str(type)
        + "}"
    )


def envelope_hash(
    *,
    run_id: str,
    seq: int,
    type: str,
    schema_version: int,
    payload_json: str,
    agent: str | None,
    recorded_at: str,
    prev_hash: str,
) -> str:
    """sha256 hex digest of :func:`envelope_json`."""
    text = envelope_json(
        run_id=run_id,
        seq=seq,
        type=type,
        schema_version=schema_version,
        payload_json=payload_json,
        agent=agent,
        recorded_at=recorded_at,
        prev_hash=prev_hash,
    )
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidEventError(
            f"event of run {run_id!r} at seq {seq} contains text that is not valid Unicode"
            f" (a lone surrogate at {exc.start})"
        ) from None
    return hashlib.sha256(data).hexdigest()


def stored_text_hash_holds(
    hash: str,
    *,
    run_id: str,
    seq: int,
    type: str,
    schema_version: int,
    payload_json: str,
    agent: str | None,
    recorded_at: str,
    prev_hash: str,
) -> bool:
    """Whether an envelope spliced from the payload's text as stored (and ``recorded_at`` as
    hashed) hashes to ``hash``. The store hashes the very text it writes, so an untouched
    event does, without its payload parsed and re-encoded. False for any other, and for
    fields that cannot be hashed: the caller re-encodes those, which says why
    (docs/ledger.md, "Checking a hash against the stored text")."""
    try:
        return (
            envelope_hash(
                run_id=run_id,
                seq=seq,
                type=type,
                schema_version=schema_version,
                payload_json=payload_json,
                agent=agent,
                recorded_at=recorded_at,
                prev_hash=prev_hash,
            )
            == hash
        )
    except (ValueError, TypeError):  # InvalidEventError included
        return False


NAME_MAX_LENGTH: Final = 200


def _bad_name(value: object, what: str) -> InvalidEventError:
    if isinstance(value, str) and "\x00" in value:
        return InvalidEventError(f"{what} {value!r:.60} contains a NUL character")
    return InvalidEventError(
        f"{what} must be a string of 1 to {NAME_MAX_LENGTH} characters, not {value!r:.60}"
    )


def _good_name(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= NAME_MAX_LENGTH and "\x00" not in value


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append. ``seq``, hashes and ``recorded_at`` are assigned by the store.

    A plain checked dataclass rather than a pydantic model: it is built for every event of a
    run, and validating (and copying) the payload dict here would cost more than storing it.
    The payload is checked when it is stored (:func:`normalized_json_text`).
    """

    type: str
    payload: dict[str, Any]
    agent: str | None = None
    schema_version: int = 1

    def __post_init__(self) -> None:
        if not _good_name(self.type):
            raise _bad_name(self.type, "event type")
        if self.agent is not None and not _good_name(self.agent):
            raise _bad_name(self.agent, "agent")
        if not isinstance(self.payload, dict):
            raise InvalidEventError(
                f"the payload of a {self.type!r} event must be a dict (a JSON object), "
                f"not {type(self.payload).__name__}"
            )
        version = self.schema_version
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidEventError(f"schema_version must be an int >= 1, not {version!r}")


class Appended(NamedTuple):
    """What the store assigned to one appended event: read it back with
    :meth:`EventStore.read` to get the stored event itself. A named tuple (immutable) because
    one is built for every event appended, at under half the cost of a frozen dataclass."""

    position: int
    seq: int
    recorded_at: datetime
    prev_hash: str
    hash: str


class StoredEvent(BaseModel):
    """An event as stored. Reads build these without validation (the store wrote and hashed
    the fields itself); ``payload`` is a fresh dict per event, safe to keep."""

    model_config = ConfigDict(frozen=True)

    position: int
    run_id: str
    seq: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    agent: str | None
    recorded_at: datetime
    prev_hash: str
    hash: str

    _stored: dict[str, Any] | None = PrivateAttr(default=None)
    """The payload as stored, where the store packed it (see :mod:`ledger.packing`);
    ``payload`` is what it unpacks to."""
    _stored_text: str | None = PrivateAttr(default=None)
    """The payload's JSON text as stored, kept by a read that checks the chain
    (``EventStore.read(keep_text=True)``) where the stored text is the text that was hashed
    (SQLite; PostgreSQL's JSONB prints its own text)."""

    def compute_hash(self) -> str:
        """Recompute this event's hash from its fields (what :meth:`EventStore.verify_chain`
        does for every event). The hash covers the payload as stored."""
        stored = self._stored if self._stored is not None else self.payload
        return self._hash_of(canonical_json(stored))

    def hash_holds(self) -> bool:
        """Whether ``hash`` is this event's hash: what ``compute_hash() == hash`` says, with
        the same errors, at less cost where the read kept the stored text.

        The store writes a payload's canonical text (:func:`normalized_json_text`) and hashes
        that text, so an envelope spliced from the stored text hashes to the stored hash
        without parsing and re-encoding the payload (a tenth of ``maai verify``'s time on a
        long run). Where it does not (an edited event, whatever the edit), the hash is
        recomputed from the parsed payload as before, so a broken chain is reported at the
        same seq with the same reason. The one case the two differ: a payload rewritten into
        another JSON text of the same value (spaces, key order, escapes) *and* re-hashed over
        that text now holds (the text hashed is the text stored), where re-encoding refused
        it; only whoever can recompute hashes can make it, and they could as well store the
        canonical text (docs/ledger.md, "Guarantees beyond the chain")."""
        text = self._stored_text
        # A naive recorded_at raises here what compute_hash would raise.
        if text is not None and stored_text_hash_holds(self.hash, **self._envelope(text)):
            return True
        return self.compute_hash() == self.hash

    def _hash_of(self, payload_json: str) -> str:
        return envelope_hash(**self._envelope(payload_json))

    def _envelope(self, payload_json: str) -> dict[str, Any]:
        """The fields :func:`envelope_hash` hashes, with ``payload_json`` as the payload."""
        return {
            "run_id": self.run_id,
            "seq": self.seq,
            "type": self.type,
            "schema_version": self.schema_version,
            "payload_json": payload_json,
            "agent": self.agent,
            "recorded_at": format_recorded_at(self.recorded_at),
            "prev_hash": self.prev_hash,
        }


_STORED_FIELDS: Final = frozenset(StoredEvent.model_fields)


def stored_event(
    position: int,
    run_id: str,
    seq: int,
    type: str,
    schema_version: int,
    payload: dict[str, Any],
    agent: str | None,
    recorded_at: datetime,
    prev_hash: str,
    hash: str,
    stored: dict[str, Any] | None = None,
    stored_text: str | None = None,
) -> StoredEvent:
    """Build a :class:`StoredEvent` from trusted values without pydantic validation.

    This is what ``model_construct`` does, minus its per-field default handling: about 3x
    faster, which matters when reading 100k events a second. All fields are always given.
    """
    event = object.__new__(StoredEvent)
    object.__setattr__(
        event,
        "__dict__",
        {
            "position": position,
            "run_id": run_id,
            "seq": seq,
            "type": type,
            "schema_version": schema_version,
            "payload": payload,
            "agent": agent,
            "recorded_at": recorded_at,
            "prev_hash": prev_hash,
            "hash": hash,
        },
    )
    object.__setattr__(event, "__pydantic_fields_set__", set(_STORED_FIELDS))
    object.__setattr__(event, "__pydantic_extra__", None)
    object.__setattr__(
        event, "__pydantic_private__", {"_stored": stored, "_stored_text": stored_text}
    )
    return event


class RunInfo(BaseModel):
    """A row of the ``runs`` table."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    kind: str
    config: dict[str, Any]
    status: str
    head_seq: int
    created_at: datetime
    updated_at: datetime


class ChainReport(BaseModel):
    """Result of :meth:`EventStore.verify_chain`."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    ok: bool
    events_checked: int
    head_seq: int
    first_bad_seq: int | None = None
    reason: str | None = None

    def raise_if_broken(self) -> None:
        """Raise :class:`~ledger.errors.ChainBrokenError` unless the chain verified."""
        if not self.ok:
            assert self.first_bad_seq is not None and self.reason is not None
            raise ChainBrokenError(self.run_id, self.first_bad_seq, self.reason)


class Checkpoint(BaseModel):
    """A run's head (seq, hash) signed with a key kept outside the ledger."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    seq: int
    hash: str
    public_key: str  # hex of the raw Ed25519 public key
    signature: str  # hex of the signature (see maai.runtime.signing)
    signed_at: datetime


def check_run_id(run_id: str) -> str:
    """Run ids are 1-128 characters of ``A-Z a-z 0-9 . _ : + @ = -``, starting with a letter
    or digit: safe in file names, URLs and shell commands without quoting."""
    if not isinstance(run_id, str) or not _RUN_ID_RE.match(run_id):
        raise InvalidEventError(
            f"bad run id {run_id!r}: use 1-128 characters from A-Z a-z 0-9 . _ : + @ = -,"
            " starting with a letter or digit"
        )
    return run_id


def check_label(value: str, what: str, max_length: int) -> str:
    if not isinstance(value, str) or not value or len(value) > max_length:
        raise InvalidEventError(f"{what} must be a non-empty string of at most {max_length}")
    if any(ord(ch) < 32 for ch in value):
        raise InvalidEventError(f"{what} {value!r} contains a control character")
    return value
