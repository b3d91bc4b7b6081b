"""Reading the fields a fold needs (:meth:`EventStore.read_fields
<ledger.store.EventStore.read_fields>`): on SQLite the database picks the values asked for or
drops the paths left out (:mod:`ledger.fields`), so the rest of a long payload is neither
fetched, parsed nor unpacked; no :class:`StoredEvent` is built."""

from __future__ import annotations

import sqlite3
import typing
from collections.abc import Callable, Iterator
from typing import Any, Final

from sqlalchemy import Connection, null

from maai.ledger.errors import ChainBrokenError
from maai.ledger.fields import (
    FieldPaths,
    checked_paths,
    omitted,
    pick,
    sqlite_payload_column,
    sqlite_size_column,
)
from maai.ledger.packed_values import MIN_EVENT_CHARS, PACKED_KEY, PackingError
from maai.ledger.schema import events, read_head
from maai.ledger.store_base import _first_line, _payload_text
from maai.ledger.store_reading import MAX_SEQ, PAYLOAD_TEXT, StoreReading, pg_chunk_query
from maai.ledger.stored_json import parse_canonical_json, parse_json
from maai.ledger.unpacking import Unpacker

_PACKED_KEY_TEXT: Final = f'"{PACKED_KEY}":'

FieldRow = tuple[int, int, str, int, str, str | None, int | None, int | None]
"""A row as a field read selects it: ``(position, seq, type, schema_version, payload text,
agent, stored size, packed)``. On SQLite the payload text holds the values picked (a JSON
array) or the payload less the paths left out, the size is the length of the payload as
stored with those paths removed, and ``packed`` whether the payload as stored is packed; on
PostgreSQL the payload is whole and the last two are ``NULL``. Read by unpacking it into
names."""

_PG_FIELDS_READ: Final = pg_chunk_query(
    events.c.position,
    events.c.seq,
    events.c.type,
    events.c.schema_version,
    PAYLOAD_TEXT,
    events.c.agent,
    null(),
    null(),
)


class StoreFieldReading(StoreReading):
    """The field reads of :class:`~ledger.store.EventStore`."""

    def read_fields(
        self,
        run_id: str,
        fields: FieldPaths,
        from_seq: int = 0,
        *,
        as_text: bool = False,
        omit: FieldPaths | None = None,
    ) -> Iterator[tuple[int, str, int, dict[str, Any] | str]]:
        """Stream ``(seq, type, schema_version, payload)`` of the run's events with seq >
        ``from_seq``, in seq order: what a fold reads, at less cost than :meth:`read`.

        Payloads are returned as they were appended, except for events of the types named in
        ``fields``: their payload is ``{path: value}`` of the dotted paths given for the type
        (``"request.address"``), ``None`` where a path is missing or ``null``; and for events
        of the types named in ``omit``: their payload less the dotted paths given for the
        type. On SQLite the database picks those values (or removes those paths), so the rest
        of a long payload is neither fetched, parsed nor unpacked (:mod:`ledger.fields`). No
        :class:`StoredEvent` is built. Chunks are fetched as by :meth:`read`.

        With ``as_text``, a payload that the store need not parse (on SQLite: one stored whole
        and too short to be a base that later events are packed against) comes as its JSON
        text, a ``str``, for the caller to parse or to validate straight from the text
        (pydantic's ``model_validate_json``, which is about as fast as parsing it alone).

        :raises RunNotFoundError: at once (not on the first ``next``) if there is no such run.
        :raises ValueError: at once, for a path that is not dotted keys, or a type named in
            both ``fields`` and ``omit``.
        """
        checked = checked_paths(fields)
        left_out = checked_paths(omit or {})
        if both := set(checked) & set(left_out):
            raise ValueError(f"types both picked from and left out of: {sorted(both)}")
        self._check_open()
        with self._errors(f"reading run {run_id!r}"), self._engine.connect() as conn:
            read_head(conn, run_id)
        return self._stream_fields(run_id, from_seq, checked, left_out, as_text and self._sqlite)

    def _stream_fields(
        self,
        run_id: str,
        after: int,
        fields: dict[str, tuple[str, ...]],
        omit: dict[str, tuple[str, ...]],
        as_text: bool,
    ) -> Iterator[tuple[int, str, int, dict[str, Any] | str]]:
        sqlite = self._sqlite
        parse = parse_canonical_json if sqlite else parse_json
        unpacker = Unpacker(lambda seq: self._fetch_stored(run_id, seq))
        fetch: Callable[[Connection, str, int, int], list[FieldRow]] = self._fetch_postgres_fields
        if sqlite:  # the first columns of a full row, picked values in the payload's place,
            # and the stored length of a payload with paths removed
            column, params = sqlite_payload_column(fields, omit)
            size_column, size_params = sqlite_size_column(omit)
            # And whether the payload as stored is packed: a picked value that is null is
            # looked for in the unpacked event only then (an event of a type that lacks
            # the path is not fetched again; a scan of a run's calls met that at every
            # event that is no call).
            query = (
                f"SELECT position, seq, type, schema_version, {column}, agent, {size_column},"
                " instr(payload, ?) > 0"
                " FROM events WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?"
            )
            params += [*size_params, _PACKED_KEY_TEXT]

            def fetch(conn: Connection, run_id: str, after: int, upto: int) -> list[FieldRow]:
                raw = conn.connection.driver_connection
                assert isinstance(raw, sqlite3.Connection)
                arguments = (*params, run_id, after, upto, self._read_chunk)
                return raw.execute(query, arguments).fetchall()

        named = fields.keys() | omit.keys()
        for rows in self._chunks(run_id, after, MAX_SEQ, fetch):
            for _, seq, type_, version, text, agent, stored_size, stored_packed in rows:
                # What the unpacker would leave alone, as text. Canonical JSON holds the
                # key's text only where it is a key: a quote inside a string is escaped.
                if (
                    as_text
                    and type_ not in named
                    and len(text) < MIN_EVENT_CHARS
                    and _PACKED_KEY_TEXT not in text
                ):
                    yield seq, type_, version, text
                    continue
                paths = fields.get(type_)
                left_out = omit.get(type_)
                # On SQLite, the length of the payload as stored, the paths removed or not.
                size = len(text) if left_out is None or stored_size is None else stored_size
                if (
                    as_text
                    and left_out is not None
                    and size < MIN_EVENT_CHARS
                    and _PACKED_KEY_TEXT not in text
                ):
                    yield seq, type_, version, text
                    continue
                try:
                    payload = parse(text)
                    if paths is not None:
                        packed = PACKED_KEY in payload if stored_packed is None else stored_packed
                        payload = (
                            dict(zip(paths, payload, strict=True))
                            if sqlite
                            else pick(payload, paths)
                        )
                        if packed and None in payload.values():  # perhaps packed: unpack it
                            payload = pick(self._fetch_logical(run_id, seq, type_, agent), paths)
                    else:
                        if not sqlite and size >= MIN_EVENT_CHARS:
                            size = len(_payload_text(payload))  # PostgreSQL's text has spaces
                        if left_out is not None and sqlite:
                            # Removed by the database; what rebuilt them goes too. The values
                            # left are packed against values at the same paths only.
                            payload = omitted(payload, left_out)
                        payload = unpacker.unpack(seq, type_, agent, payload, size)
                        if left_out is not None and not sqlite:
                            payload = omitted(payload, left_out)
                except (ValueError, TypeError, PackingError) as exc:
                    raise ChainBrokenError(
                        run_id, seq, f"stored event cannot be read ({_first_line(exc)})"
                    ) from None
                yield seq, type_, version, payload

    def _fetch_postgres_fields(
        self, conn: Connection, run_id: str, after: int, upto: int
    ) -> list[FieldRow]:
        rows = self._postgres_chunk(conn, _PG_FIELDS_READ, run_id, after, upto)
        return typing.cast(list[FieldRow], rows)

    def _fetch_logical(
        self, run_id: str, seq: int, type_: str, agent: str | None
    ) -> dict[str, Any]:
        """One event's payload as appended, unpacked on its own (its bases fetched)."""
        stored = self._fetch_stored(run_id, seq)
        if PACKED_KEY not in stored:
            return stored
        return Unpacker(lambda s: self._fetch_stored(run_id, s)).unpack(
            seq, type_, agent, stored, MIN_EVENT_CHARS
        )
