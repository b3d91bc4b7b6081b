"""Folding a stored run: decoding its events as a fold reads them (requests by their header,
the fields ``evolve`` may read, without the answers' raw text) and handing them to the
experiment's fold. ``load_state`` gives a run's state and head seq; resume, replay, show and
the engine start from it (docs/experiments.md, "What evolve may read")."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

from maai.domain import experiments
from maai.domain.events import Event, ModelCallCompleted, ModelCallRequested
from maai.domain.experiment import Experiment
from maai.domain.registry import UnknownEventError
from maai.ledger import EventStore, StoredEvent


class UnreadableHistoryError(ValueError):
    """A stored event this code cannot decode; the message names its seq and type."""


State = Any
"""An experiment's run state (see ``maai.domain.experiment.RunState``)."""


class RecordedRequestHeader:
    """What folding a run reads of a recorded request: who asked what of which model, at
    which address. The request's text is not rebuilt from the ledger to fold a run (that is
    most of the cost of reading a long one); a reducer reads only these (docs/experiments.md,
    "What evolve may read"), and reading anything else raises instead of seeing nothing."""

    __slots__ = ("address", "agent", "model", "purpose")

    def __init__(self, request: dict[str, Any]) -> None:
        self.address: str = request["address"]
        self.agent: str = request["agent"]
        self.purpose: str = request["purpose"]
        self.model: str = request["model"]

    @classmethod
    def of(cls, address: str, agent: str, purpose: str, model: str) -> RecordedRequestHeader:
        header = cls.__new__(cls)
        header.address, header.agent, header.purpose, header.model = address, agent, purpose, model
        return header

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"request.{name} of a recorded model.requested was read while folding a run: "
            "evolve may read only its address, agent, purpose and model (docs/experiments.md)"
        )


def _folded_request(payload: dict[str, Any]) -> ModelCallRequested:
    """A request as a fold reads it: from its payload as stored (``FOLD_KEEPS_PACKED``)."""
    return ModelCallRequested.model_construct(
        request=RecordedRequestHeader(payload["request"]),
        request_hash=payload["request_hash"],
        attempt=payload.get("attempt", 1),
    )


FOLD_KEEPS_PACKED = (ModelCallRequested.TYPE,)
"""The event types a fold reads as stored (``EventStore.read(keep_packed=...)``)."""

FOLD_FIELDS: dict[str, tuple[str, ...]] = {
    ModelCallRequested.TYPE: (
        "attempt",
        "request_hash",
        "request.address",
        "request.agent",
        "request.purpose",
        "request.model",
    )
}
"""What ``load_state`` reads of the events it does not read whole
(``EventStore.read_fields``): a request's header, the rest of its payload left in the
store (docs/experiments.md, "What evolve may read")."""


FOLD_OMITS: dict[str, tuple[str, ...]] = {ModelCallCompleted.TYPE: ("answer.raw",)}
"""What ``load_state`` leaves out of the events it reads (``EventStore.read_fields(omit=)``):
an answer's raw provider response, which a state does not hold (``ModelAnswer.without_raw``)
and which is most of a short answer's payload."""


def _request_from_fields(fields: dict[str, Any]) -> ModelCallRequested:
    """A request from its ``FOLD_FIELDS`` (a missing ``attempt`` is the default, 1)."""
    return _requested(
        RecordedRequestHeader.of(
            fields["request.address"],
            fields["request.agent"],
            fields["request.purpose"],
            fields["request.model"],
        ),
        fields["request_hash"],
        1 if fields["attempt"] is None else fields["attempt"],
    )


def _constructed_requested(
    request: RecordedRequestHeader, request_hash: str, attempt: int
) -> ModelCallRequested:
    return ModelCallRequested.model_construct(
        request=request, request_hash=request_hash, attempt=attempt
    )


_set_slot = object.__setattr__
_new_object = object.__new__


def _built_requested(
    request: RecordedRequestHeader, request_hash: str, attempt: int
) -> ModelCallRequested:
    """``_constructed_requested``, built as pydantic's ``model_construct`` builds a model
    given every field (its field values, the names set, no extra or private values) without
    its loop over the fields: a fold builds one per recorded request."""
    event = _new_object(ModelCallRequested)
    _set_slot(
        event, "__dict__", {"request": request, "request_hash": request_hash, "attempt": attempt}
    )
    _set_slot(event, "__pydantic_fields_set__", {"request", "request_hash", "attempt"})
    _set_slot(event, "__pydantic_extra__", None)
    _set_slot(event, "__pydantic_private__", None)
    return event


def _same_construction() -> bool:
    """Whether ``_built_requested`` builds what ``model_construct`` builds (a pydantic that
    builds models otherwise, e.g. with another layout of an instance, makes it fall back)."""
    header = RecordedRequestHeader.of("p1/a/x/1", "a", "x", "m")
    built, constructed = _built_requested(header, "h", 2), _constructed_requested(header, "h", 2)
    names = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
    try:
        return type(built) is type(constructed) and all(
            getattr(built, n) == getattr(constructed, n) for n in names
        )
    except AttributeError:
        return False


_requested = _built_requested if _same_construction() else _constructed_requested


def fold_decoder(experiment: Experiment) -> Callable[[StoredEvent], Event]:
    """How a fold decodes a stored event (read with ``keep_packed=FOLD_KEEPS_PACKED``): a
    request as its header, everything else through the experiment's registry."""
    decode = experiment.registry.decode
    requested, version = ModelCallRequested.TYPE, ModelCallRequested.VERSION

    def decoded(stored: StoredEvent) -> Event:
        if stored.type == requested and stored.schema_version == version:
            return _folded_request(stored.payload)
        return decode(stored.type, stored.schema_version, stored.payload)

    return decoded


FoldDecode = Callable[[str, int, dict[str, Any] | str], Event]
"""Decodes (type, schema_version, payload) as read by ``read_fields(FOLD_FIELDS,
as_text=True)``."""


def fold_fields_decoder(experiment: Experiment) -> FoldDecode:
    """How ``load_state`` decodes what ``EventStore.read_fields(run, FOLD_FIELDS,
    as_text=True)`` gives: a request as its header, a payload given as JSON text validated
    from the text, everything else through the experiment's registry."""
    decode, decode_json = experiment.registry.decode, experiment.registry.decode_json
    requested, version = ModelCallRequested.TYPE, ModelCallRequested.VERSION

    def decoded(type_: str, schema_version: int, payload: dict[str, Any] | str) -> Event:
        if type(payload) is str:
            return decode_json(type_, schema_version, payload)
        assert isinstance(payload, dict)
        if type_ == requested:
            if schema_version != version:
                # Its upcaster would need the whole payload: bump FOLD_FIELDS's reading with it.
                raise UnknownEventError(f"{type_!r} version {schema_version} cannot be folded")
            return _request_from_fields(payload)
        return decode(type_, schema_version, payload)

    return decoded


def load_state(
    store: EventStore, run_id: str, experiment: Experiment | None = None
) -> tuple[State, int]:
    """Fold a stored run: its state and head seq."""
    experiment = experiment or experiments.get(store.get_run(run_id).kind)
    # Nearly everything a fold makes lives on in the state: the collector would traverse the
    # growing state again and again for nothing (a third of a long fold's time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _fold_stored(store, run_id, experiment, fold_fields_decoder(experiment))
    finally:
        if collecting:
            gc.enable()


def _fold_stored(
    store: EventStore, run_id: str, experiment: Experiment, decode: FoldDecode
) -> tuple[State, int]:
    head = 0

    def decoded() -> Iterator[Event]:
        nonlocal head
        for seq, type_, schema_version, payload in store.read_fields(
            run_id, FOLD_FIELDS, as_text=True, omit=FOLD_OMITS
        ):
            try:
                event = decode(type_, schema_version, payload)
            except (ValueError, KeyError, TypeError) as exc:  # unknown type, newer schema, a
                # payload that does not fit
                text = str(exc).strip()
                first = text.splitlines()[0] if text else type(exc).__name__
                raise UnreadableHistoryError(
                    f"run {run_id}: seq {seq} ({type_}) cannot be read: {first}"
                ) from None
            head = seq
            yield event

    # The experiment's fold: the state evolve would reach, without a copy per event.
    state = experiment.fold(decoded())
    return state, head
