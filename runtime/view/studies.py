"""What ``maai view`` knows of a study beyond its runs in the ledger: the plan a submitted
study's jobs carry (docs/studies.md "Many machines"), for its planned runs (those not yet
created are pending) and its budget.

The ledger holds no study file; a study submitted to workers on PostgreSQL has its signed
plan in every job of the task queue, which lives in the ledger's database. It is read there,
in the viewer's read-only transaction. A study run on one machine (``maai study run``) has no
queue: its file, given to ``maai view --study FILE``, says its plan and budget.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from maai.ledger import EventStore

TASK = "maai.run"  # runtime.distributed.TASK (not imported: procrastinate is heavy)


@dataclass(frozen=True)
class StudyPlan:
    runs: list[str]  # every run the study plans, created or not
    budget_usd: float | None


def file_plan(runs: Sequence[str], budget_usd: float | None) -> StudyPlan:
    """The plan of a study file (``runtime.study.load_study``'s runs and budget)."""
    return StudyPlan(sorted(runs), budget_usd)


def queued_plan(store: EventStore, study: str) -> StudyPlan | None:
    """The plan of the newest job queued for ``study``, or ``None`` (no queue, no job)."""
    if store.location.backend != "postgresql":
        return None
    try:
        with store._engine.connect() as conn:  # noqa: SLF001 -- one read of the queue's table
            if conn.execute(text("SELECT to_regclass('procrastinate_jobs')")).scalar() is None:
                return None
            args = conn.execute(
                text(
                    "SELECT args FROM procrastinate_jobs WHERE task_name = :task"
                    " AND args->>'study' = :study ORDER BY id DESC LIMIT 1"
                ),
                {"task": TASK, "study": study},
            ).scalar()
    except SQLAlchemyError:
        return None  # a queue that cannot be read only hides what it would add
    return _plan_of(args)


def _plan_of(args: Any) -> StudyPlan | None:
    if isinstance(args, str):
        args = json.loads(args)
    if not isinstance(args, dict):
        return None
    signed = args.get("plan")
    plan = signed.get("plan") if isinstance(signed, dict) else None
    if not isinstance(plan, dict) or not isinstance(plan.get("runs"), dict):
        return None
    budget = plan.get("budget_usd", args.get("budget_usd"))
    return StudyPlan(
        sorted(str(run_id) for run_id in plan["runs"]),
        float(budget) if isinstance(budget, int | float) else None,
    )
