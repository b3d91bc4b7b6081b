"""Call addresses: the logical name of every model call, fixed by the protocol, never by
timing (docs/architecture.md). Each experiment names its own slots
(``p1/alice/r3/choice``, ``e2/bob/message``...); the parts every experiment shares are read
and written here, never by splitting strings by hand:

- attempt ``n`` of a question in slot ``S`` is ``S/n``;
- the ``u``-th utility extraction of a participant's call ``A`` is ``A/extract/u``.
"""

from __future__ import annotations

from dataclasses import dataclass

EXTRACT = "extract"


def attempt_address(slot: str, attempt: int) -> str:
    return f"{slot}/{attempt}"


def extract_address(participant_address: str, n: int) -> str:
    return f"{participant_address}/{EXTRACT}/{n}"


@dataclass(frozen=True, slots=True)
class CallAddress:
    """A parsed address: the participant's call it serves (itself, or for a utility
    extraction the call whose answer it reads), and the extraction's number."""

    text: str
    participant: str
    extract: int | None

    @classmethod
    def parse(cls, address: str) -> CallAddress:
        base, marker, n = address.rpartition(f"/{EXTRACT}/")
        if marker and n.isdigit():
            return cls(address, base, int(n))
        return cls(address, address, None)

    @property
    def is_extraction(self) -> bool:
        return self.extract is not None

    @property
    def parts(self) -> list[str]:
        """The segments of the participant's address."""
        return self.participant.split("/")

    def extracts(self, participant_address: str) -> bool:
        """Whether this is a utility extraction reading ``participant_address``."""
        return self.is_extraction and self.participant == participant_address
