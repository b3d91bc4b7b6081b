"""What each page of ``maai view`` shows: plain data for its template, read through
:class:`~maai.runtime.view.reading.ViewStore` (docs/view.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request

from maai.domain import experiments
from maai.domain.experiments import UnknownExperimentError
from maai.projections.report import (
    Section,
    anchored_sections,
    experiment_sections,
    run_section,
)
from maai.runtime.view import run_page as parts
from maai.runtime.view.reading import SORT_KEYS, RunFilter, ViewStore
from maai.runtime.view.run_facts import labels_of, stamp

PER_PAGE = 50
FOLD_BUDGET_S = 0.15
"""How long the runs page folds rows not folded before; the rest are shown as pending and
the page's script asks again (a ledger of 1,000 runs answers at once after a start)."""
STATUSES = ("created", "running", "completed", "failed", "interrupted")


class NotFound(LookupError):
    pass


def runs_page(request: Request, store: ViewStore) -> dict[str, Any]:
    q = request.query_params
    wanted = RunFilter(
        experiment=q.get("experiment", ""),
        status=q.get("status", ""),
        label=q.get("label", ""),
        study=q.get("study", ""),
        model=q.get("model", ""),
        since=q.get("since", ""),
        until=q.get("until", ""),
    )
    sort = q.get("sort", "created")
    if sort not in SORT_KEYS:
        sort = "created"
    descending = q.get("order", "desc") != "asc"
    try:
        page = int(q.get("page", "1"))
    except ValueError:
        page = 1
    infos = store.run_infos()
    found = store.runs_page(
        wanted, sort, descending, page, PER_PAGE, budget_s=FOLD_BUDGET_S, infos=infos
    )
    params = {
        "experiment": wanted.experiment,
        "status": wanted.status,
        "label": wanted.label,
        "study": wanted.study,
        "model": wanted.model,
        "since": wanted.since,
        "until": wanted.until,
        "sort": sort,
        "order": "desc" if descending else "asc",
    }
    return {
        "title": "Runs",
        "found": found,
        "pending": any(getattr(row, "pending", False) for row in found.rows),
        "params": params,
        "sort_keys": SORT_KEYS,
        "statuses": STATUSES,
        "experiments": store.experiment_names(),
        "studies": sorted({str(labels_of(i)["study"]) for i in infos if "study" in labels_of(i)}),
        "stamp": stamp,
    }


def _history(store: ViewStore, run_id: str) -> tuple[Any, Any]:
    info = store.info(run_id)
    try:
        experiment = experiments.get(info.kind)
    except UnknownExperimentError:
        experiment = None
    return info, store.history(info, experiment)


PARTS = ("lineage", "timeline", "audits", "transcript", "trails", "calls", "memory", "sections")
"""The parts of a run's page fetched after its first screen (each read at the page's head)."""


FIRST_SCREEN = 100
"""Timeline lines sent with a run's page (more than a screen holds); the rest come as its
first part."""


def run_page(request: Request, store: ViewStore) -> dict[str, Any]:
    """The first screen: the run's facts and the start of its timeline, read from the stored
    payloads (nothing decoded); the rest of the page comes in parts."""
    info = store.info(request.path_params["run_id"])
    lines, rest_from = store.public_lines(info, after=0, limit=FIRST_SCREEN)
    try:
        title = experiments.get(info.kind).title
    except UnknownExperimentError:
        title = info.kind
    return {
        "title": f"Run {info.run_id}",
        "info": info,
        "experiment_title": title,
        "lines": lines,
        "rest_from": rest_from,
        "labels": labels_of(info),
        "modified_build": store.modified_build(info),
    }


def run_part(request: Request, store: ViewStore) -> dict[str, Any]:
    """One part of a run's page, as of ``?head=SEQ`` (the head its page was read at)."""
    name = request.path_params["part"]
    if name not in PARTS:
        raise NotFound(f"a run's page has no part {name!r}")
    info = store.info(request.path_params["run_id"])
    try:
        head = int(request.query_params.get("head", str(info.head_seq)))
        after = max(0, int(request.query_params.get("from", "0")))
    except ValueError:
        head, after = info.head_seq, 0
    info = info.model_copy(update={"head_seq": max(0, min(head, info.head_seq))})
    if name == "timeline":
        lines, _ = store.public_lines(info, after=after, limit=None)
        return {"info": info, "lines": lines, "template": "_part_timeline.html.j2"}
    if name == "lineage":  # a part: the first read of the ledger's forks scans its events
        lineage = store.lineage(info.run_id)
        return {"info": info, "lineage": lineage, "template": "_lineage.html.j2"}
    try:
        experiment = experiments.get(info.kind)
    except UnknownExperimentError:
        experiment = None
    history = store.history(info, experiment)
    context: dict[str, Any] = {
        "info": info,
        "history": history,
        "template": f"_part_{name}.html.j2",
    }
    if name == "audits":
        found, failed = store.findings(info, history)
        context.update(findings=found, failed_audits=failed)
    elif name == "transcript":
        context["transcript"] = _transcript(history)
    elif name == "trails":
        context["trails"] = parts.trails(parts.timeline(history), history.agent_names)
    elif name == "calls":
        context["calls"] = parts.calls(history)
    elif name == "memory":
        context["memory"] = parts.memory_versions(history)
    else:
        sections: list[Section] = [run_section(history)]
        try:
            sections += experiment_sections(history)
        except Exception as exc:  # an edited ledger may defeat a section: say so
            context["broken"] = f"{type(exc).__name__}: {exc}"
        context["sections"] = anchored_sections(sections)
    return context


def _transcript(history: Any) -> str:
    if history.experiment is None:
        return ""
    try:
        return str(history.experiment.views().transcript(history))
    except Exception as exc:
        return f"(the transcript cannot be built: {type(exc).__name__}: {exc})"


def run_live(
    request: Request, store: ViewStore, render: Callable[[dict[str, Any]], str]
) -> dict[str, Any]:
    """The run's status and head, and its events after ``?after=SEQ`` as timeline HTML."""
    info = store.info(request.path_params["run_id"])
    try:
        after = max(0, int(request.query_params.get("after", "0")))
    except ValueError:
        after = 0
    new = store.events_after(info, after) if info.head_seq > after else []
    lines = parts.public_lines(parts.lines_of(new))
    html = render({"lines": lines, "run_id": info.run_id}) if lines else ""
    return {"status": info.status, "head": info.head_seq, "html": html}


def prompt_page(request: Request, store: ViewStore) -> dict[str, Any]:
    info, history = _history(store, request.path_params["run_id"])
    seq = int(request.path_params["seq"])
    texts = parts.prompt(history, seq)
    if texts is None:
        raise NotFound(f"run {info.run_id} has no model request at seq {seq}")
    return {"system": texts[0], "input": texts[1], "seq": seq}


def study_page(request: Request, store: ViewStore) -> dict[str, Any]:
    name = request.path_params["name"]
    progress = _study(store, name)
    return {"title": f"Study {name}", "name": name, **progress, "stamp": stamp}


def study_report_part(request: Request, store: ViewStore) -> dict[str, Any]:
    """The sections of ``maai study report`` over the study's runs as they stand (without the
    study file, which the ledger does not hold: no reference, no confounds)."""
    from maai.projections.study_report import (
        comparison_sections,
        factor_labels,
        study_runs,
        study_section,
    )
    from maai.projections.study_report import experiment_sections as study_experiment_sections

    name = request.path_params["name"]
    infos = sorted(
        (i for i in store.run_infos() if labels_of(i).get("study") == name),
        key=lambda i: i.run_id,
    )
    if not infos:
        raise NotFound(f"no run of the ledger belongs to a study named {name!r}")
    histories = []
    for info in infos:
        try:
            experiment = experiments.get(info.kind)
        except UnknownExperimentError:
            experiment = None
        histories.append(store.history(store.info(info.run_id), experiment))
    factors = factor_labels(histories, None)
    runs = study_runs(histories, list(factors))
    sections = [study_section(name, runs, factors, None, None)]
    sections += study_experiment_sections(runs, None)
    sections += comparison_sections(runs, factors, [])
    return {"sections": anchored_sections(sections), "template": "_part_sections.html.j2"}


def study_live(request: Request, store: ViewStore) -> dict[str, Any]:
    progress = _study(store, request.path_params["name"])
    keys = ("counts", "progress", "total", "eta_s", "cost_usd", "budget_usd")
    return {key: progress[key] for key in keys}


def _study(store: ViewStore, name: str) -> dict[str, Any]:
    infos = [i for i in store.run_infos() if labels_of(i).get("study") == name]
    plan = store.study_plan(name)
    if not infos and plan is None:
        raise NotFound(f"no run of the ledger belongs to a study named {name!r}")
    infos.sort(key=lambda i: i.run_id)
    rows = [store.row(info) for info in infos]
    counts = {status: 0 for status in STATUSES}
    for info in infos:
        counts[info.status] = counts.get(info.status, 0) + 1
    by_cell: dict[str, list[Any]] = {}
    for row in rows:
        by_cell.setdefault(str(row.labels.get("cell", "")), []).append(row)
    cells = []
    for cell, members in by_cell.items():
        factors = {
            k: v for k, v in members[0].labels.items() if k not in ("study", "cell", "replicate")
        }
        outcomes: dict[str, int] = {}
        for row in members:
            if row.info.status == "completed" and row.outcome is not None:
                outcomes[row.outcome] = outcomes.get(row.outcome, 0) + 1
        done = sum(outcomes.values())
        cells.append(
            {
                "cell": cell,
                "factors": factors,
                "runs": members,
                "outcomes": [
                    (outcome, n, done, _wilson(n, done)) for outcome, n in sorted(outcomes.items())
                ],
            }
        )
    created = {info.run_id for info in infos}
    not_created = [run_id for run_id in plan.runs if run_id not in created] if plan else []
    progress = {
        "done": counts.get("completed", 0),
        "running": counts.get("running", 0),
        "failed": counts.get("failed", 0),
        "interrupted": counts.get("interrupted", 0),
        "pending": counts.get("created", 0) + len(not_created),
    }
    total = len(rows) + len(not_created)
    finished = [r for r in rows if r.info.status in ("completed", "failed")]
    left = total - len(finished)
    mean_s = sum(r.duration_s for r in finished) / len(finished) if finished else None
    # The runs left, each as long as the mean, as many at a time as run now (at least one).
    at_once = max(1, progress["running"])
    eta_s = None if mean_s is None or not left else mean_s * left / at_once
    priced = [r.cost_usd for r in rows if r.cost_usd is not None]
    # A run without prices has no cost: the study's cost is then unknown, not understated.
    cost = sum(priced) if rows and len(priced) == len(rows) else None
    return {
        "counts": counts,
        "progress": progress,
        "planned": plan is not None,
        "not_created": not_created,
        "total": total,
        "cells": cells,
        "eta_s": eta_s,
        "cost_usd": cost,
        "budget_usd": plan.budget_usd if plan else None,
    }


def _wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (95%)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def compare_page(request: Request, store: ViewStore) -> dict[str, Any]:
    """Two runs side by side, their events aligned by key (the protocol slot each fills):
    a fork and its parent from the fork point (the prefix they share is one row), two
    replicates step by step."""
    a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
    if not a or not b:  # the form, to name the runs
        return {"title": "Compare two runs", "a": a, "b": b, "left": None, "right": None}
    left_info, left = _history(store, a)
    right_info, right = _history(store, b)
    fork = store.fork_of(right_info.run_id, left_info.run_id)
    child_on = "right"
    if fork is None:
        fork = store.fork_of(left_info.run_id, right_info.run_id)
        child_on = "left"
    shared = fork.parent_seq if fork is not None else 0
    left_entries = [e for e in left.entries if e.seq > shared]
    right_entries = [e for e in right.entries if e.seq > shared]
    rows = align(
        [parts.line_of(e) for e in left_entries],
        [parts.line_of(e) for e in right_entries],
        [_key(e) for e in left_entries],
        [_key(e) for e in right_entries],
    )
    return {
        "title": f"{left_info.run_id} and {right_info.run_id}",
        "a": a,
        "b": b,
        "left": left_info,
        "right": right_info,
        "fork": fork,
        "child_on": child_on,
        "shared": shared,
        "rows": rows,
    }


def align(
    left_lines: list[Any], right_lines: list[Any], keys_left: list[str], keys_right: list[str]
) -> list[tuple[Any, Any]]:
    """Pairs of lines, matched by event key where both runs filled the slot (the first of
    the right run's not matched yet: concurrent calls may be recorded in another order), in
    the left run's order; each of the right run's other events right after the right event
    before it."""
    right_at: dict[str, list[int]] = {}
    for j, k in reversed(list(enumerate(keys_right))):
        right_at.setdefault(k, []).append(j)  # the first occurrence last: popped first
    paired = [right_at[k].pop() if right_at.get(k) else None for k in keys_left]
    matched = {j for j in paired if j is not None}
    after: dict[int, list[int]] = {}  # a matched right event -> the unmatched ones after it
    before = -1
    for j in range(len(right_lines)):
        if j in matched:
            before = j
        else:
            after.setdefault(before, []).append(j)
    rows: list[tuple[Any, Any]] = [(None, right_lines[j]) for j in after.get(-1, [])]
    for i, pair in enumerate(paired):
        rows.append((left_lines[i], None if pair is None else right_lines[pair]))
        if pair is not None:
            rows += [(None, right_lines[k]) for k in after.get(pair, [])]
    return rows


def _key(entry: Any) -> str:
    try:
        return str(entry.event.key)
    except NotImplementedError:
        return f"seq/{entry.seq}"
