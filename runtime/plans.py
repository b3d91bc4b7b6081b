"""Signed study plans: what ``maai study submit`` asks workers to run, signed with the
submitter's key, and the check a worker makes before it takes a job (docs/studies.md, "Many
machines", and docs/ledger.md, "Trust before acting").

Anyone who can write to the queue's database can enqueue a job and create the run it names.
A worker therefore runs a job only if the job carries a plan signed by a key it trusts, the
plan names the run and pins its hashed ``run.started``, the run's chain and signatures hold,
and every provider host of the plan is one the worker allows. A refused job fails with the
reason and is never retried.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from maai.canonical import canonical_json
from maai.domain.config import ExperimentConfig
from maai.domain.costs import SIMULATED
from maai.ledger import EventStore
from maai.runtime.signing import Signer, fingerprint
from maai.runtime.trust import UntrustedRunError, require_trusted, started_of

PLAN_FORMAT = "maai.plan/1"
OPENAI_HOST = "api.openai.com"


class JobRefused(RuntimeError):
    """A job a worker will not run; the message says why (the job fails, never retried)."""


class TrustKeyError(ValueError):
    """A ``--trust`` key file that cannot be read; the message names the file."""


def provider_hosts(config: ExperimentConfig) -> list[str]:
    """The hosts (``host[:port]``) that a run of ``config`` sends requests to."""
    hosts: set[str] = set()
    for user in config.model_users():
        provider = user.provider
        if user.model == SIMULATED:
            continue
        if provider is not None and provider.base_url:
            hosts.add(urlsplit(provider.base_url).netloc.lower())
        else:
            hosts.add(OPENAI_HOST)
    return sorted(hosts)


def _started_hash(store: EventStore, run_id: str) -> str:
    """The hash of the event that records the run's config: its ``run.started``, or for a
    fork (docs/forks.md) its own ``run.forked``, which holds its config from the point on
    and whose hash covers the inherited prefix too."""
    from maai.runtime.forks import fork_event

    forked = fork_event(store, run_id)
    if forked is not None:
        return forked.hash
    hashes = store.event_hashes(run_id)
    if not hashes:
        raise JobRefused(f"run {run_id} has no events")
    return hashes[0][1]


def _recorded_config(store: EventStore, run_id: str) -> dict[str, Any]:
    """The config the run records: its ``run.started``'s, or a fork's ``run.forked``'s."""
    from maai.runtime.forks import forked_of

    forked = forked_of(store, run_id)
    if forked is not None:
        return dict(forked.config)
    return dict(started_of(store, run_id).config)


def make_plan(
    store: EventStore,
    study: str,
    budget_usd: float | None,
    runs: Mapping[str, ExperimentConfig],
) -> dict[str, Any]:
    """The plan of a study whose runs are all in the ledger: each run pinned by the hash of
    its ``run.started`` (a fork's: its ``run.forked``), which must record the study's config
    for it (a run made by someone else under the study's run id is refused, never signed
    into the plan)."""
    pinned: dict[str, str] = {}
    hosts: set[str] = set()
    for run_id, config in runs.items():
        started_of(store, run_id)  # a run with no hashed run.started is refused
        wanted = {k: v for k, v in config.model_dump(mode="json").items() if k != "prices"}
        recorded = {k: v for k, v in _recorded_config(store, run_id).items() if k != "prices"}
        if canonical_json(wanted) != canonical_json(recorded):
            raise UntrustedRunError(
                f"run {run_id} in the ledger was not started with this study's config for it;"
                " it is not signed into the plan"
            )
        pinned[run_id] = _started_hash(store, run_id)
        hosts.update(provider_hosts(config))
    return {
        "format": PLAN_FORMAT,
        "study": study,
        "budget_usd": budget_usd,
        "runs": pinned,
        "hosts": sorted(hosts),
    }


def sign_plan(plan: dict[str, Any], signer: Signer) -> dict[str, Any]:
    """What a job carries: the plan, the public key and the signature of its canonical JSON."""
    signature = signer.private.sign(canonical_json(plan).encode()).hex()
    return {"plan": plan, "public_key": signer.public_key, "signature": signature}


def read_trusted_key(path: Path) -> str:
    """The raw public key (hex) in a ``--trust`` file: an Ed25519 public key in PEM (``openssl
    pkey -in signing_key.pem -pubout``), a maai signing key (its public half), or hex."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TrustKeyError(f"{path}: cannot read the key ({exc.strerror or exc})") from None
    text = data.decode("ascii", "replace").strip()
    if len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text):
        return text.lower()
    key: Any
    try:
        if b"PRIVATE KEY" in data:
            key = serialization.load_pem_private_key(data, password=None)
            key = key.public_key() if isinstance(key, Ed25519PrivateKey) else None
        else:
            key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as exc:
        raise TrustKeyError(f"{path}: not an Ed25519 key in PEM or hex ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise TrustKeyError(f"{path}: not an Ed25519 key")
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def _holds(signed: Mapping[str, Any]) -> bool:
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(str(signed["public_key"])))
        message = canonical_json(signed["plan"]).encode()
        key.verify(bytes.fromhex(str(signed["signature"])), message)
    except (InvalidSignature, ValueError, TypeError, KeyError):
        return False
    return True


def check_job(
    store: EventStore,
    run_id: str,
    signed: Mapping[str, Any] | None,
    trusted_keys: Iterable[str],
    allowed_hosts: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The job's plan, once everything a worker must know before it sends a request holds;
    :class:`JobRefused` naming the first thing that does not."""
    if not isinstance(signed, Mapping) or not isinstance(signed.get("plan"), Mapping):
        raise JobRefused(f"run {run_id}: the job carries no signed plan (maai study submit)")
    if not _holds(signed):
        raise JobRefused(f"run {run_id}: the plan's signature does not hold")
    trusted = set(trusted_keys)
    if signed["public_key"] not in trusted:
        raise JobRefused(
            f"run {run_id}: the plan is signed by key {fingerprint(signed['public_key'])}, "
            "which this worker does not trust (--trust KEYFILE)"
        )
    plan = dict(signed["plan"])
    runs = plan.get("runs")
    if plan.get("format") != PLAN_FORMAT or not isinstance(runs, Mapping):
        raise JobRefused(f"run {run_id}: not a {PLAN_FORMAT} plan")
    if run_id not in runs:
        raise JobRefused(f"run {run_id}: the signed plan does not name this run")
    plan_hosts = [str(h) for h in plan.get("hosts") or []]
    allowed = set(plan_hosts if allowed_hosts is None else allowed_hosts)
    barred = sorted(set(plan_hosts) - allowed)
    if barred:
        raise JobRefused(
            f"run {run_id}: provider host(s) {', '.join(barred)} not allowed (--allow-host)"
        )
    try:
        require_trusted(store, run_id)
    except UntrustedRunError as exc:
        raise JobRefused(str(exc)) from None
    # The hash pins the run's config, and with it its hosts, to what the plan was made from.
    if _started_hash(store, run_id) != runs[run_id]:
        raise JobRefused(f"run {run_id}: its run.started is not the one the signed plan names")
    return plan
