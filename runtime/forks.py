"""Forking a stored run (docs/forks.md): finding its fork points, creating the child from
the parent's prefix, and checking a child's prefix against its parent. The rules (where a
run may be forked, what may change) are the experiment's (``Experiment.fork_point_names``,
``Experiment.fork_rules``); this module only reads and writes the ledger."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from maai.domain import experiments
from maai.domain.config import ConfigError
from maai.domain.events import RunForked, RunStarted
from maai.domain.experiment import Experiment
from maai.domain.forks import (
    OWN_DRAWS,
    SAME_DRAWS,
    BoundaryScan,
    ForkError,
    apply_set,
    changed_paths,
    check_changes,
    parse_set,
)
from maai.domain.registry import COMMON_REGISTRY
from maai.ledger import EventStore, StoredEvent
from maai.ledger.forking import (
    call_addresses,
    chained,
    copied_rows,
    create_fork,
    prefix_hash_as,
)
from maai.ledger.schema import events as events_table
from maai.runtime import signing
from maai.runtime.checkpoints import PREFIX
from maai.runtime.writer import to_new_event

# Fields every config has, set by generic options rather than by --set.
_GENERIC = ("seed", "labels")


@dataclass
class ParentScan:
    """What forking reads of a parent: its boundaries and named points, and the config and
    seed in force at each ``run.started``/``run.forked`` (the last one before a point)."""

    experiment: Experiment
    scan: BoundaryScan
    configs: list[tuple[int, dict[str, Any], int]]  # (seq, config, seed), in seq order
    head: int

    def config_at(self, seq: int) -> tuple[dict[str, Any], int]:
        found = [(config, seed) for at, config, seed in self.configs if at <= seq]
        if not found:
            raise ForkError(f"--at: the run has no run.started at or before seq {seq}")
        return found[-1]


def scan_parent(store: EventStore, run_id: str, until: str | None = None) -> ParentScan:
    """The run's fork points, read up to its head, or (``until``) only as far as it takes
    to find that point: forking never reads more of the parent than its prefix and the
    first events after it."""
    info = store.get_run(run_id)
    experiment = experiments.get(info.kind)
    scan = BoundaryScan(experiment.fork_point_names)
    configs: list[tuple[int, dict[str, Any], int]] = []
    head = 0
    # Only the calls' addresses are read (picked by the database), and whole only the
    # events that hold a config.
    for seq, type_, address in call_addresses(store, run_id):
        head = seq
        if type_ in (RunStarted.TYPE, RunForked.TYPE):
            stored = store.read_one(run_id, seq)
            assert stored is not None
            event = COMMON_REGISTRY.decode(type_, stored.schema_version, stored.payload)
            assert isinstance(event, RunStarted | RunForked)
            configs.append((seq, event.config, event.seed))
        scan.add(seq, type_, address)
        if until is not None and scan.found(until):
            break
    return ParentScan(experiment, scan, configs, head)


@dataclass(frozen=True)
class ForkPlan:
    parent_run: str
    point: str
    seq: int
    config: dict[str, Any]
    forked: RunForked
    notes: tuple[str, ...]


def plan_fork(
    store: EventStore,
    parent_id: str,
    point: str,
    sets: list[str],
    *,
    seed: int | None = None,
    same_draws: bool = False,
    labels: dict[str, str] | None = None,
) -> ForkPlan:
    """Everything the child will be, checked; nothing written. :class:`ForkError` (one
    line) for a fork that cannot be made as asked."""
    info = store.get_run(parent_id)
    parent = scan_parent(store, info.run_id, until=point)
    seq = parent.scan.resolve(point)
    notes: list[str] = []
    if info.status not in ("completed", "failed", "interrupted"):
        notes.append(
            f"run {info.run_id} is {info.status}: forked at seq {seq}, a committed boundary"
        )
    if parent.scan.failed_at is not None and seq >= parent.scan.failed_at:
        raise ForkError(f"--at {point}: the run failed at seq {parent.scan.failed_at}, before it")
    base, parent_seed = parent.config_at(seq)
    config = base
    for item in sets:
        path, value = parse_set(item)
        if path.split(".")[0] in _GENERIC:
            raise ForkError(f"--set {path}: use --seed/--same-draws or --label for it")
        config = apply_set(config, path, value)
    if same_draws and seed is not None:
        raise ForkError("--seed and --same-draws: give one")
    child_seed = parent_seed if same_draws else seed if seed is not None else _new_seed()
    config = {**config, "seed": child_seed}
    if labels:
        config = {**config, "labels": {**(config.get("labels") or {}), **labels}}
    return _checked(
        store, info.run_id, parent, point, seq, base, config, same_draws, "--set", tuple(notes)
    )


def _checked(
    store: EventStore,
    parent_id: str,
    parent: ParentScan,
    point: str,
    seq: int,
    base: dict[str, Any],
    config: dict[str, Any],
    same_draws: bool,
    source: str,
    notes: tuple[str, ...] = (),
) -> ForkPlan:
    """The plan of a child with ``config`` (the parent's ``base`` at the point, changed):
    its changes checked against the experiment's rules, the config validated."""
    experiment = parent.experiment
    generic = (*_GENERIC, "prices")
    paths = [p for p in changed_paths(base, config) if p.split(".")[0] not in generic]
    check_changes(experiment.fork_rules(point), point, paths)
    try:
        parsed = experiment.parse_config(config, source=source)
    except ConfigError as exc:
        raise ForkError(str(exc).splitlines()[0]) from None
    config = parsed.model_dump(mode="json")
    changes = {p: _value_at(config, p) for p in paths}
    forked = RunForked(
        parent_run=parent_id,
        parent_seq=seq,
        parent_hash=_hash_at(store, parent_id, seq),
        point=point,
        changes=changes,
        draws=SAME_DRAWS if same_draws else OWN_DRAWS,
        seed=int(config["seed"]),
        config=config,
    )
    return ForkPlan(parent_id, point, seq, config, forked, notes)


def fork_base(store: EventStore, parent_id: str, point: str) -> tuple[str, dict[str, Any]]:
    """A fork point's parent (its full id) and the config in force there: what a study from
    a fork point applies its factors to."""
    info = store.get_run(parent_id)
    parent = scan_parent(store, info.run_id, until=point)
    return info.run_id, parent.config_at(parent.scan.resolve(point))[0]


def plan_fork_to(
    store: EventStore, parent_id: str, point: str, config: dict[str, Any], source: str
) -> ForkPlan:
    """The plan of a child with a whole config given (a study's run from a fork point; its
    seed is its own)."""
    parent = scan_parent(store, parent_id, until=point)
    seq = parent.scan.resolve(point)
    base, _ = parent.config_at(seq)
    return _checked(store, parent_id, parent, point, seq, base, config, False, source)


def make_fork(store: EventStore, plan: ForkPlan, child_id: str) -> str:
    """Write the child (one transaction): the parent's prefix, then ``run.forked``."""
    kind = store.get_run(plan.parent_run).kind
    create_fork(
        store,
        parent_id=plan.parent_run,
        child_id=child_id,
        upto=plan.seq,
        kind=kind,
        config=plan.config,
        forked=to_new_event(plan.forked),
    )
    return child_id


def _new_seed() -> int:
    return secrets.randbelow(2**31)


def _value_at(config: Any, path: str) -> Any:
    node = config
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list):
            named = [i for i in node if isinstance(i, dict) and i.get("name") == part]
            node = named[0] if named else node[int(part)] if part.isdigit() else None
        else:
            return None
    return node


def _hash_at(store: EventStore, run_id: str, seq: int) -> str:
    with store._engine.connect() as conn:  # noqa: SLF001 -- one indexed lookup
        found = conn.execute(
            select(events_table.c.hash).where(
                events_table.c.run_id == run_id, events_table.c.seq == seq
            )
        ).scalar()
    if found is None:
        raise ForkError(f"run {run_id}: no event at seq {seq}")
    return str(found)


def fork_event(store: EventStore, run_id: str) -> StoredEvent | None:
    """The run's own ``run.forked`` (the last one: a fork of a fork holds its parent's too);
    ``None`` for a run that is no fork."""
    with store._engine.connect() as conn:  # noqa: SLF001 -- one indexed lookup
        seq = conn.execute(
            select(func.max(events_table.c.seq)).where(
                events_table.c.run_id == run_id, events_table.c.type == RunForked.TYPE
            )
        ).scalar()
    if seq is None:
        return None
    return next(iter(store.read(run_id, from_seq=int(seq) - 1)), None)


def forked_of(store: EventStore, run_id: str) -> RunForked | None:
    stored = fork_event(store, run_id)
    if stored is None:
        return None
    event = COMMON_REGISTRY.decode(stored.type, stored.schema_version, stored.payload)
    assert isinstance(event, RunForked)
    return event


def check_prefix(store: EventStore, run_id: str) -> list[str]:
    """Problems with a fork's inherited prefix (none for a run that is no fork): its events
    must chain, under the parent's id, to the parent hash its ``run.forked`` names, and
    where the parent is in this ledger its chain must hold and have that hash there."""
    forked = forked_of(store, run_id)
    if forked is None:
        return []
    problems = []
    rebuilt = prefix_hash_as(store, run_id, forked.parent_seq, forked.parent_run)
    if rebuilt != forked.parent_hash:
        problems.append(
            f"inherited prefix (seqs 1..{forked.parent_seq}) is not run {forked.parent_run}'s:"
            " it does not chain to the parent's hash at the fork point"
        )
    try:
        parent_chain = store.verify_chain(forked.parent_run)
    except Exception:  # noqa: BLE001 -- the parent may live in another ledger
        return [*problems, f"parent run {forked.parent_run} is not in this ledger (not checked)"]
    if not parent_chain.ok:
        problems.append(
            f"parent run {forked.parent_run}'s chain is broken at seq "
            f"{parent_chain.first_bad_seq}: {parent_chain.reason}"
        )
    elif _hash_at(store, forked.parent_run, forked.parent_seq) != forked.parent_hash:
        problems.append(
            f"parent run {forked.parent_run}'s event {forked.parent_seq} is not the one forked"
        )
    return problems


@dataclass(frozen=True)
class Lineage:
    """Which run is a fork of which: each fork's parent, point and the parent's seq there."""

    parents: dict[str, tuple[str, str, int]]  # child -> (parent, point, parent seq)

    def children(self, run_id: str) -> list[str]:
        return sorted(c for c, (p, _, _) in self.parents.items() if p == run_id)


def lineage(store: EventStore) -> Lineage:
    """Every fork of the ledger, from its own ``run.forked`` (the last one of its run: a
    fork of a fork holds its parent's before it), read without reading any other event."""
    with store._engine.connect() as conn:  # noqa: SLF001 -- one query over one event type
        last = (
            select(events_table.c.run_id, func.max(events_table.c.seq).label("seq"))
            .where(events_table.c.type == RunForked.TYPE)
            .group_by(events_table.c.run_id)
            .subquery()
        )
        rows = conn.execute(
            select(events_table.c.run_id, events_table.c.payload).join(
                last,
                (events_table.c.run_id == last.c.run_id) & (events_table.c.seq == last.c.seq),
            )
        ).all()
    parents = {}
    for run_id, payload in rows:
        data = json.loads(payload) if isinstance(payload, str) else payload
        parents[run_id] = (data["parent_run"], data["point"], int(data["parent_seq"]))
    return Lineage(parents)


def inherited_hashes(store: EventStore, run_id: str) -> tuple[str, dict[int, str]] | None:
    """A fork's parent and the parent's hash of each inherited event (its prefix re-chained
    under the parent's id): what the parent's signatures in the prefix (its checkpoints,
    and the ``run.signed`` events that name them) are checked against. ``None`` for a run
    that is no fork."""
    forked = forked_of(store, run_id)
    if forked is None:
        return None
    rows = copied_rows(store, run_id, forked.parent_seq)
    hashes = {row[0]: digest for row, _, digest in chained(forked.parent_run, rows)}
    return forked.parent_run, hashes


def check_parent_receipt(store: EventStore, run_id: str, data: Any) -> list[str] | None:
    """A receipt of a fork's parent held against the fork's inherited prefix: its signature
    must hold, and each inherited event, re-chained under the parent's id, must have the
    hash prefix the receipt lists at its seq (and the receipt's head hash, where the fork
    point is the parent's head). ``None`` when ``data`` is no receipt of this run's parent
    (the caller checks it as the run's own)."""
    inherited = inherited_hashes(store, run_id)
    if inherited is None or not isinstance(data, dict) or data.get("run_id") != inherited[0]:
        return None
    parent, hashes = inherited
    try:
        seq, head_hash = int(data["head_seq"]), str(data["head_hash"])
        prefixes = str(data["hash_prefixes"])
        key, signature = str(data["public_key"]), str(data["signature"])
    except (KeyError, TypeError, ValueError) as exc:
        return [f"not a maai receipt: {exc}"]
    if not signing.valid(key, signature, parent, seq, head_hash):
        return ["the receipt's signature does not hold: the receipt itself was altered"]
    if seq < len(hashes):
        return [f"the receipt covers the parent up to seq {seq}, before the fork point"]
    for at in sorted(hashes):
        expected = prefixes[(at - 1) * PREFIX : at * PREFIX]
        if hashes[at][:PREFIX] != expected or (at == seq and hashes[at] != head_hash):
            return [f"inherited seq {at} differs from the parent's receipt (and so does the rest)"]
    return []
