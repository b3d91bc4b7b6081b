"""Signed checkpoints: a run's head (seq, hash) signed with a local Ed25519 key.

The key is created on first use in the user's config folder (``$XDG_CONFIG_HOME/maai`` or
``~/.config/maai``), readable by its owner only, and never stored in the ledger.
``MAAI_SIGNING_KEY`` names another file, which must exist: a mistyped path is an error,
never a new key that would sign in the owner's place. Whoever can write to the ledger can
re-hash a rewritten history, but cannot sign its new head with this key: ``maai verify``
checks every signature and says which key signed, and a published receipt (``maai
receipt``) pins a head for good.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from maai.canonical import canonical_json

KEY_ENV = "MAAI_SIGNING_KEY"
FORMAT = "maai.checkpoint/1"


class SigningKeyError(RuntimeError):
    """The signing key cannot be read or created; the message names the file."""


def key_path(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    if env.get(KEY_ENV):
        return Path(env[KEY_ENV]).expanduser()
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "maai" / "signing_key.pem"


def message(run_id: str, seq: int, head_hash: str) -> bytes:
    """What is signed: the run, the seq and the hash of its head, as canonical JSON."""
    return canonical_json(
        {"format": FORMAT, "run_id": run_id, "seq": seq, "hash": head_hash}
    ).encode()


def fingerprint(public_key_hex: str) -> str:
    """A short name for a public key (the first 16 hex digits of its SHA-256)."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


@dataclass(frozen=True)
class Signer:
    private: Ed25519PrivateKey
    path: Path

    @property
    def public_key(self) -> str:
        raw = self.private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        return raw.hex()

    def sign(self, run_id: str, seq: int, head_hash: str) -> str:
        return self.private.sign(message(run_id, seq, head_hash)).hex()


def load_signer(path: Path | None = None, *, create: bool = True) -> Signer:
    """The local key: ``path``, else the file ``MAAI_SIGNING_KEY`` names, else the default
    file. ``create``: a missing ``path`` or default file is created; a missing file named by
    ``MAAI_SIGNING_KEY`` is never created (:class:`SigningKeyError` names the variable)."""
    named = path is None and bool(os.environ.get(KEY_ENV))
    path = path or key_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if named:
            raise SigningKeyError(
                f"{path}: no such signing key ({KEY_ENV} names it); correct {KEY_ENV}, create"
                f" a key there (openssl genpkey -algorithm ed25519 -out {path}), or unset"
                f" {KEY_ENV} to use the default key"
            ) from None
        if not create:
            raise SigningKeyError(f"{path}: no signing key") from None
        return _create(path)
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot read the signing key ({exc.strerror})") from None
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path}: not an Ed25519 private key in PEM ({exc})") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise SigningKeyError(f"{path}: not an Ed25519 key")
    return Signer(private, path)


def _create(path: Path) -> Signer:
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Created readable by its owner alone; O_EXCL: two processes never both write one.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_signer(path, create=False)
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot create the signing key ({exc.strerror})") from None
    with os.fdopen(fd, "wb") as out:
        out.write(pem)
    return Signer(private, path)


def valid(public_key_hex: str, signature_hex: str, run_id: str, seq: int, head_hash: str) -> bool:
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
        key.verify(bytes.fromhex(signature_hex), message(run_id, seq, head_hash))
    except (InvalidSignature, ValueError):
        return False
    return True
