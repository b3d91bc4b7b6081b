"""Choosing a ledger's runs, shared by the Python API (``maai.api``) and ``maai runs``
(``--experiment``, ``--status``, ``--label``): every run with its config as its hashed
``run.started`` records it, its labels, and the filters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from maai.ledger import EventStore, RunInfo


def hashed_runs(store: EventStore) -> tuple[list[RunInfo], list[str]]:
    """Every run, oldest first, with its experiment and config as its hashed ``run.started``
    records them: the ``runs`` row is a cache that whoever can write to the ledger can edit
    unseen. A run whose ``run.started`` does not hold to its hash, or that has no events, is
    listed with no config (so no labels); the second list says which, one line each."""
    infos: list[RunInfo] = []
    problems: list[str] = []
    for info in store.list_runs():
        hashed, problem = hashed_run(store, info)
        infos.append(hashed)
        if problem is not None:
            problems.append(problem)
    return infos, problems


def hashed_run(store: EventStore, info: RunInfo) -> tuple[RunInfo, str | None]:
    first = store.read_one(info.run_id, 1) if info.head_seq > 0 else None
    if first is None or first.type != "run.started":
        return info.model_copy(update={"config": {}}), None
    if not first.hash_holds():
        problem = (
            f"run {info.run_id}: its run.started does not hold to its hash (maai verify "
            "tells more); its config and labels are not used"
        )
        return info.model_copy(update={"config": {}}), problem
    payload = first.payload
    config = payload.get("config")
    from maai.runtime.forks import fork_event

    forked = fork_event(store, info.run_id)
    if forked is not None and forked.hash_holds():
        # A fork's config (its labels too) from its fork point on (docs/forks.md).
        config = forked.payload.get("config")
    update = {"kind": str(payload.get("experiment", info.kind))}
    update["config"] = dict(config) if isinstance(config, dict) else {}  # type: ignore[assignment]
    return info.model_copy(update=update), None


def labels_of(info: RunInfo) -> dict[str, Any]:
    """A run's labels (its config's ``labels``; empty in runs older than labels)."""
    labels = info.config.get("labels") if isinstance(info.config, dict) else None
    return dict(labels) if isinstance(labels, dict) else {}


def label_matches(actual: Any, wanted: Any) -> bool:
    """Whether a run's label value ``actual`` equals ``wanted``. A string matches a
    non-string label by its text: ``"true"``/``"false"`` a boolean, ``"3"`` or ``"3.0"`` the
    number 3 (so ``--label k=v`` on the command line works for every label type)."""
    if isinstance(wanted, str) and not isinstance(actual, str):
        text = wanted.strip()
        if isinstance(actual, bool):
            return text.lower() == ("true" if actual else "false")
        if isinstance(actual, int | float):
            try:
                return float(text) == actual
            except ValueError:
                return False
        return False
    if isinstance(actual, bool) != isinstance(wanted, bool):
        return False  # True is not the number 1 here
    return bool(actual == wanted)


def select_runs(
    infos: Iterable[RunInfo],
    *,
    experiment: str | None = None,
    status: str | None = None,
    labels: Mapping[str, Any] | None = None,
) -> list[RunInfo]:
    """The runs that match every filter given (``None`` filters nothing), in order."""
    wanted = dict(labels or {})
    chosen = []
    for info in infos:
        if experiment is not None and info.kind != experiment:
            continue
        if status is not None and info.status != status:
            continue
        if wanted:
            have = labels_of(info)
            if not all(k in have and label_matches(have[k], v) for k, v in wanted.items()):
                continue
        chosen.append(info)
    return chosen
