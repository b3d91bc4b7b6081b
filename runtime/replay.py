"""Serving recorded answers instead of calling models.

``ReplayCaller`` has the same ``call`` signature as ``runtime.recording.ModelCaller``, so the
engine swaps one for the other. Answers are found by logical address (never by content or
call order) and the request must hash exactly as recorded: a difference means the code now
asks something else than it asked then, and that is an error naming the call.

It never calls a model unless constructed with ``live_fallback`` (resume: recorded calls are
served, unrecorded ones go live; a changed request is still an error).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from agents import Model

from maai.domain.calls import ModelAnswer, ModelRequest
from maai.runtime.call_errors import AttemptFailure, ModelCallError
from maai.runtime.recording import Caller, ModelCaller, OnAttemptFailed


class ReplayError(RuntimeError):
    """A recorded run and the current code disagree about a model call."""

    address: str


class ReplayMissError(ReplayError, LookupError):
    """The call was never recorded."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__(f"no recorded answer for model call {address}")


class ReplayMismatchError(ReplayError):
    """The call was recorded, but the request now differs from the recorded one."""

    def __init__(self, address: str, recorded_hash: str, current_hash: str) -> None:
        self.address = address
        self.recorded_hash = recorded_hash
        self.current_hash = current_hash
        super().__init__(
            f"model call {address} differs from the recording: "
            f"recorded request hash {recorded_hash}, current request hash {current_hash}"
        )


class ReplayCaller:
    """Serves ``{address: (request_hash, answer)}``; see the module text."""

    def __init__(
        self,
        recorded: Mapping[str, tuple[str, ModelAnswer]],
        *,
        failed: Mapping[str, tuple[str, list[AttemptFailure]]] | None = None,
        live_fallback: Caller | Model | None = None,
    ) -> None:
        self._recorded = dict(recorded)
        # Calls that failed for good in the recorded run fail the same way on replay.
        self._failed = dict(failed or {})
        self._served: set[str] = set()
        self._fallback_model: Model | None = None
        self._fallback: Caller | None
        if isinstance(live_fallback, Model):
            self._fallback = ModelCaller()
            self._fallback_model = live_fallback
        else:
            self._fallback = live_fallback

    @classmethod
    def from_calls(
        cls,
        calls: Iterable[tuple[ModelRequest, ModelAnswer]],
        *,
        live_fallback: Caller | Model | None = None,
    ) -> ReplayCaller:
        """From recorded (request, answer) pairs; a later pair for an address wins."""
        return cls(
            {req.address: (req.request_hash(), answer) for req, answer in calls},
            live_fallback=live_fallback,
        )

    def lookup(self, request: ModelRequest) -> ModelAnswer:
        """The recorded answer for ``request``, checked; no fallback.

        Raises ``ModelCallError`` again for a call recorded as failed for good."""
        address = request.address
        if address in self._recorded:
            recorded_hash, answer = self._recorded[address]
            self._check(address, recorded_hash, request)
            return answer
        if address in self._failed:
            recorded_hash, failures = self._failed[address]
            self._check(address, recorded_hash, request)
            raise ModelCallError(request, failures)
        raise ReplayMissError(address)

    def _check(self, address: str, recorded_hash: str, request: ModelRequest) -> None:
        current_hash = request.request_hash()
        if current_hash != recorded_hash:
            raise ReplayMismatchError(address, recorded_hash, current_hash)
        self._served.add(address)

    async def call(
        self,
        request: ModelRequest,
        model: Model | None = None,
        *,
        on_attempt_failed: OnAttemptFailed | None = None,
    ) -> ModelAnswer:
        try:
            return self.lookup(request)
        except ReplayMissError:
            if self._fallback is None:
                raise
        live_model = self._fallback_model or model
        return await self._fallback.call(request, live_model, on_attempt_failed=on_attempt_failed)

    def unserved(self) -> list[str]:
        """Recorded addresses never asked for (sorted): calls the code no longer makes."""
        return sorted((set(self._recorded) | set(self._failed)) - self._served)
