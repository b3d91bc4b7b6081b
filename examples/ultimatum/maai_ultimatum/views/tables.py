"""The game's tables: one row per run (the offer, the answer, the payoffs) and one per
model call; declared for maai's generic table writer."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from maai.projections.history import History
from maai.projections.schema import CATEGORY, FLAG, ColumnType, col
from maai.projections.tables import RUN_ID, Table
from maai.projections.tables import render_tables as render_generic

from maai_ultimatum.config import UltimatumConfig
from maai_ultimatum.events import OfferMade, PayoffsSet, ResponseMade


def _games(history: History) -> Iterator[dict[str, Any]]:
    config = history.config
    if not isinstance(config, UltimatumConfig):
        return
    offer = next((e for _, e in history.each(OfferMade)), None)
    response = next((e for _, e in history.each(ResponseMade)), None)
    payoffs = next((e for _, e in history.each(PayoffsSet)), None)
    yield {
        "pie": config.pie,
        "proposer": config.proposer,
        "responder": config.responder,
        "offer": offer.amount if offer else None,
        "accepted": response.accepted if response else None,
        "outcome": payoffs.outcome if payoffs else None,
        "proposer_points": payoffs.payoffs.get(config.proposer) if payoffs else None,
        "responder_points": payoffs.payoffs.get(config.responder) if payoffs else None,
    }


def _calls(history: History) -> Iterator[dict[str, Any]]:
    for entry, requested in history.requests():
        request = requested.request
        yield {
            "seq": entry.seq,
            "address": request.address,
            "agent": request.agent,
            "purpose": request.purpose,
            "model": request.model,
        }


TYPES: dict[str, ColumnType] = {
    "pie": col("int64", "points"),
    "proposer": CATEGORY,
    "responder": CATEGORY,
    "offer": col("int64", "points"),
    "accepted": FLAG,
    "outcome": CATEGORY,
    "proposer_points": col("int64", "points"),
    "responder_points": col("int64", "points"),
}
"""The declared type of each column beyond maai's common ones (maai.projections.schema)."""


TABLES: tuple[Table, ...] = (
    Table(
        "games",
        "One row per run: the offer, the answer and the points.",
        (
            RUN_ID,
            ("pie", "Points to split."),
            ("proposer", "The proposer's name."),
            ("responder", "The responder's name."),
            ("offer", "Points offered to the responder; empty when no offer could be read."),
            ("accepted", "Whether the responder accepted; empty when no answer was read."),
            ("outcome", "accepted, rejected or incomplete."),
            ("proposer_points", "The proposer's points."),
            ("responder_points", "The responder's points."),
        ),
        _games,
    ),
    Table(
        "model_calls",
        "One row per model call requested.",
        (
            RUN_ID,
            ("seq", "Sequence number of the request in the run's ledger."),
            ("address", "The call's address: u/PLAYER/offer|response/ATTEMPT."),
            ("agent", "The player called."),
            ("purpose", "offer or response."),
            ("model", "The model called."),
        ),
        _calls,
    ),
)


def render_tables(histories: Sequence[History]) -> Mapping[str, str]:
    return render_generic(TABLES, histories, types=TYPES)
