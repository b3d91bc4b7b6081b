"""One decoded event of a run with its envelope's seq, hash and time: what histories hold.

Its own module so that ``held`` (which makes entries) and ``history`` (which holds them) both
import it from below."""

from __future__ import annotations

from dataclasses import dataclass

from maai.domain.events import Event


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    hash: str
    recorded_at: str
    event: Event
