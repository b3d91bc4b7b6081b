"""How the engine's model calls are made: live (any SDK model, the simulated participant
included) or from a recording."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from agents import Model

from maai.domain import experiments
from maai.domain.calls import ModelAnswer, ModelRequest
from maai.domain.config import UTILITY, ExperimentConfig
from maai.domain.events import ModelAttemptFailed
from maai.domain.experiment import Experiment
from maai.runtime import providers
from maai.runtime.call_errors import AttemptFailure, ErrorKind, ModelCallError
from maai.runtime.recording import Caller, ModelCaller
from maai.runtime.windows import WindowCheck


def attempt_event(failure: AttemptFailure) -> ModelAttemptFailed:
    return ModelAttemptFailed(
        address=failure.address,
        agent=failure.agent,
        attempt=failure.attempt,
        error_kind=failure.error_kind.value,
        status=failure.http_status,
        message=failure.message,
        retry_in_s=failure.retry_delay_s,
        retryable=failure.retryable,
    )


class LiveExecutor:
    """One SDK model per participant (and one for the utility agent), built on first use."""

    def __init__(
        self,
        config: ExperimentConfig,
        *,
        experiment: Experiment | None = None,
        caller: Caller | None = None,
        env: Mapping[str, str] = os.environ,
        models: Mapping[str, Model] | None = None,
    ) -> None:
        self.config = config
        self.experiment = experiment or experiments.get(config.experiment)
        self.caller = caller or ModelCaller(config.retry)
        self.env = env
        self._models: dict[str, Model] = dict(models or {})
        self._users = {user.who: user for user in config.model_users()}
        self._windows = WindowCheck(config)

    def model_for(self, who: str) -> Model:
        model = self._models.get(who)
        if model is None:
            model = self._build(who)
            self._models[who] = model
        return model

    def _build(self, who: str) -> Model:
        user = self._users.get(who)
        if user is None:
            raise providers.ProviderSetupError(f"{providers.describe_who(who)}: not in the config")
        if user.model == providers.SIMULATED:
            from maai.runtime.simulated import SimulatedModel

            if who == UTILITY:
                return SimulatedModel(self.experiment.simulated_utility(self.config))
            return SimulatedModel(self.experiment.simulated_participant(self.config, who))
        return providers.build_model(
            user.model,
            user.provider,
            who=who,
            env=self.env,
            timeout_s=self.config.retry.timeout_s,
        )

    async def execute(
        self,
        request: ModelRequest,
        on_attempt_failed: Callable[[ModelAttemptFailed], None],
    ) -> ModelAnswer:
        async def report(failure: AttemptFailure) -> None:
            on_attempt_failed(attempt_event(failure))

        overflow = self._windows.overflow(request)
        if overflow is not None:
            # Not sent: the provider would refuse it, and asking again cannot help.
            failure = AttemptFailure(
                address=request.address,
                agent=request.agent,
                purpose=request.purpose,
                model=request.model,
                attempt=1,
                max_attempts=1,
                error_kind=ErrorKind.CONTEXT_WINDOW,
                message=overflow.describe(request),
                retryable=False,
            )
            await report(failure)
            raise ModelCallError(request, [failure])
        return await self.caller.call(
            request, self.model_for(request.agent), on_attempt_failed=report
        )


class RecordedExecutor:
    """Serves answers from a recording (``runtime.replay.ReplayCaller``); no model, no
    network unless the caller was built with a live fallback."""

    def __init__(self, caller: Caller) -> None:
        self.caller = caller

    async def execute(
        self,
        request: ModelRequest,
        on_attempt_failed: Callable[[ModelAttemptFailed], None],
    ) -> ModelAnswer:
        async def report(failure: AttemptFailure) -> None:
            on_attempt_failed(attempt_event(failure))

        return await self.caller.call(request, None, on_attempt_failed=report)
