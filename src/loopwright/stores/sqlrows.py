"""Rows shared by the SQL stores: one row per entry, plus the listing fold.

An entry is kept as its JSON text (``body``), not as ``jsonb``: ``load`` must give back
exactly what was appended, and ``jsonb`` refuses ``\\u0000`` in strings. Searchable facts
(kind, timestamp, the first prompt's text) get their own columns so listing needs no JSON
parsing of message rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from loopwright.stores.base import (
    InfoList,
    SessionInfo,
    build_info,
    first_prompt_text,
    newest_first,
)
from loopwright.stores.entries import Entry
from loopwright.stores.jsonl import encode_entry

EntryRow = tuple[str, str, str, str, float, str | None, str]
PROMPT_CHARS = 2000


def entry_row(session_id: str, project: str, entry: Entry) -> EntryRow:
    """(session_id, project, uuid, kind, ts, prompt, body) for an INSERT."""
    prompt = first_prompt_text(entry.payload) if entry.kind == "message" else None
    if prompt is not None:
        prompt = prompt.replace("\x00", "")[:PROMPT_CHARS]  # text columns refuse NUL
    body = encode_entry(entry)
    return (session_id, project, entry.uuid, entry.kind, entry.timestamp, prompt, body)


def decode(body: str) -> Entry:
    return Entry.from_dict(json.loads(body))


def infos_from_rows(
    aggregates: Iterable[tuple[str, str, float, float, int]],
    metas: Iterable[tuple[str, str]],
    prompts: Iterable[tuple[str, str]],
) -> InfoList:
    """Listing rows from aggregates (sid, project, created, updated, count), meta bodies
    (sid, body) and first prompts (sid, prompt)."""
    meta_by_session: dict[str, list[dict[str, Any]]] = {}
    for session_id, body in metas:
        meta_by_session.setdefault(session_id, []).append(decode(body).payload)
    prompt_by_session = dict(prompts)
    infos: list[SessionInfo] = []
    for session_id, project, created, updated, count in aggregates:
        infos.append(
            build_info(
                session_id,
                project,
                (float(created), float(updated)),
                int(count),
                meta_by_session.get(session_id, []),
                prompt_by_session.get(session_id),
            )
        )
    return newest_first(infos)
