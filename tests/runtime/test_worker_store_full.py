"""A worker's run stopped by the store (a full disk on the database server) is left
``interrupted``, never ``running``, and its job fails with the reason (for procrastinate to
retry once there is room)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from maai.ledger import EventStore
from maai.ledger.errors import StoreFullError
from maai.runtime import plans, signing
from maai.runtime.distributed import TASK, build_worker_app
from maai.runtime.runs import load_config, start_run

REPO = Path(__file__).resolve().parents[2]


def test_a_worker_s_run_stopped_by_a_full_store_is_left_interrupted(
    postgres_url: str, signing_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    signer = signing.load_signer(Path(signing_key))
    with EventStore.open(postgres_url, upgrade=True) as store:
        config = load_config(REPO / "configs" / "collaboration.yaml")
        run_id = start_run(store, config, signer=signer)
        # A worker runs only a job whose plan it trusts (docs/studies.md): as submitted.
        plan = plans.sign_plan(plans.make_plan(store, "full", None, {run_id: config}), signer)
        appended = store.append
        calls = [0]

        def fills_up(*args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            if calls[0] > 2:
                raise StoreFullError("appending: the database is full (disk_full)")
            return appended(*args, **kwargs)

        monkeypatch.setattr(store, "append", fills_up)
        said: list[str] = []
        app = build_worker_app(store, signer, lambda run, what: said.append(f"{run}: {what}"))
        with pytest.raises(StoreFullError):
            asyncio.run(app.tasks[TASK].func(run_id=run_id, plan=plan))
        assert store.get_run(run_id).status == "interrupted"
        assert said[-1].startswith(f"{run_id}: stopped: appending: the database is full")
