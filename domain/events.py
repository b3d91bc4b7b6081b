"""Events shared by every experiment: the run's life cycle and its model calls.

Every event is a typed, versioned pydantic model. ``key`` is the event's logical identity
within a run (the protocol slot it fills), so a fold can ask "has this happened?" and
a resumed run never records a slot twice.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from maai.domain.calls import ModelAnswer, ModelRequest


class Event(BaseModel):
    """Base of all events. Subclasses set ``TYPE`` (the stored type name) and ``VERSION``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    TYPE: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1

    @property
    def key(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} has no key")

    @property
    def agent_name(self) -> str | None:
        agent = getattr(self, "agent", None)
        return agent if isinstance(agent, str) else None


class RunStarted(Event):
    TYPE: ClassVar[str] = "run.started"
    experiment: str
    config: dict[str, Any]
    seed: int
    trace_id: str | None = None
    code_version: str = ""
    # maai, Python and key package versions, the git commit of a source checkout
    # (maai.runtime.provenance); absent in runs recorded before it was kept.
    provenance: dict[str, Any] | None = None
    # The request hash the run's requests use (maai.domain.calls.REQUEST_HASH_VERSION);
    # absent (version 1) in runs recorded before version 2.
    request_hash_version: int | None = None

    @model_serializer(mode="wrap")
    def _without_absent_provenance(self, handler: SerializerFunctionWrapHandler) -> Any:
        # A run recorded before provenance (or the hash version) was kept must re-encode to
        # its stored payload.
        data = handler(self)
        if isinstance(data, dict):
            for name in ("provenance", "request_hash_version"):
                if data.get(name) is None:
                    data.pop(name, None)
        return data

    @property
    def hash_version(self) -> int:
        return self.request_hash_version or 1

    @property
    def key(self) -> str:
        return "run/started"


class RunForked(Event):
    """This run is a fork of ``parent_run`` at ``point``: the events before this one are the
    parent's first ``parent_seq`` events, copied; the parent's event there hashes to
    ``parent_hash``. From here on the run's config is ``config`` (the parent's with
    ``changes`` applied) and its draws use ``seed`` (the parent's with ``draws="same"``)
    (docs/forks.md)."""

    TYPE: ClassVar[str] = "run.forked"
    parent_run: str
    parent_seq: int
    parent_hash: str
    point: str
    changes: dict[str, Any]
    draws: str  # "same": the parent's random streams go on; "own": drawn from ``seed``
    seed: int
    config: dict[str, Any]

    @property
    def key(self) -> str:
        return f"run/forked/{self.parent_seq}"


class RunCompleted(Event):
    TYPE: ClassVar[str] = "run.completed"

    @property
    def key(self) -> str:
        return "run/completed"


class RunFailed(Event):
    """A run stopped on an error it cannot get past by itself (e.g. a model that keeps
    failing). The history stays resumable: the failed call is simply asked again."""

    TYPE: ClassVar[str] = "run.failed"
    reason: str
    address: str | None = None
    agent: str | None = None
    attempt: int = 1

    @property
    def key(self) -> str:
        return f"run/failed/{self.address}/{self.attempt}"


class RunClaimed(Event):
    """A study's worker took this run: who runs it from here (its id, host and process id).
    Appended when a worker takes the run, before anything else it records; ``continues`` says
    whether the run had been begun before (by a worker that stopped answering, by ``maai
    study run``, or by the same worker's earlier try that failed). A fact about the outside
    world, as an answer is: no reducer reads it, and it never follows ``run.completed``."""

    TYPE: ClassVar[str] = "run.claimed"
    worker: str
    host: str
    pid: int
    continues: bool

    @property
    def key(self) -> str:
        return f"run/claimed/{self.worker}"


class RunSigned(Event):
    """A signed checkpoint of this run's history, named inside the chain that it signs: the
    chain then says which checkpoints must exist, so that deleting their rows is seen
    (docs/ledger.md, "Signing evidence in the chain"). Recorded by the engine in the first
    append after the signature; it changes no state and no protocol derives it."""

    TYPE: ClassVar[str] = "run.signed"
    seq: int
    hash: str
    public_key: str
    signature: str

    @property
    def key(self) -> str:
        return f"run/signed/{self.seq}/{self.signature[:16]}"


class ModelCallRequested(Event):
    TYPE: ClassVar[str] = "model.requested"
    request: ModelRequest
    request_hash: str
    attempt: int = 1  # >1 when a resumed run asks again a call that never answered

    @property
    def key(self) -> str:
        return f"call/{self.request.address}/requested/{self.attempt}"

    @property
    def agent_name(self) -> str | None:
        return self.request.agent


class ModelAttemptFailed(Event):
    """One transport attempt of a call failed (429, 5xx, timeout, dropped connection...)."""

    TYPE: ClassVar[str] = "model.attempt_failed"
    address: str
    agent: str
    attempt: int
    error_kind: str
    status: int | None = None
    message: str
    retry_in_s: float | None = None
    retryable: bool

    @property
    def key(self) -> str:
        return f"call/{self.address}/failed/{self.attempt}"


class ModelCallCompleted(Event):
    TYPE: ClassVar[str] = "model.completed"
    address: str
    agent: str
    request_hash: str
    model: str
    answer: ModelAnswer

    @property
    def key(self) -> str:
        return f"call/{self.address}/completed"
