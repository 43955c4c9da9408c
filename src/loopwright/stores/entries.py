"""Transcript entries: one versioned, JSON-safe record per thing a session remembers.

Kinds:

- ``message``: one stream message (``payload`` is ``message.to_dict()``); its ``uuid`` is the
  message's uuid, so ``resume_at=<uuid>`` finds it.
- ``state``: a snapshot of session state (todos, read files, cumulative usage and cost,
  ``model_usage``, ``num_turns``), written at turn end.
- ``compact``: the compacted conversation that replaces everything before it on resume.
- ``meta``: session-wide facts (cwd, title, tag, fork origin). Meta entries are not part of
  the conversation chain: their ``parent_uuid`` is always ``None``.

``parent_uuid`` links message/state/compact entries into a chain. Resuming follows the chain
back from the newest entry, so appending after an older uuid (``resume_at``) makes a branch
without rewriting anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from loopwright.messages import Message, new_uuid

ENTRY_VERSION = 1
EntryKind = Literal["message", "state", "compact", "meta"]
ENTRY_KINDS: frozenset[str] = frozenset(get_args(EntryKind))


class EntryFormatError(ValueError):
    """A stored record that is not a valid entry (missing fields, unknown kind or version)."""


@dataclass(frozen=True, slots=True)
class Entry:
    kind: EntryKind
    session_id: str
    payload: dict[str, Any]
    uuid: str = field(default_factory=new_uuid)
    parent_uuid: str | None = None
    timestamp: float = field(default_factory=time.time)
    v: int = ENTRY_VERSION

    def to_dict(self) -> dict[str, Any]:
        # Field order is fixed so that a line starts with its kind: listing can skip
        # message lines without parsing them.
        return {
            "v": self.v,
            "kind": self.kind,
            "uuid": self.uuid,
            "parent_uuid": self.parent_uuid,
            "session_id": self.session_id,
            "timestamp": self.timestamp,
            "payload": self.payload,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Entry:
        if not isinstance(data, dict):
            raise EntryFormatError(f"an entry must be a JSON object, got {type(data).__name__}")
        record: dict[str, Any] = data
        version = record.get("v")
        if not isinstance(version, int) or version > ENTRY_VERSION or version < 1:
            raise EntryFormatError(
                f"unsupported entry version {version!r} (this loopwright reads up to "
                f"v{ENTRY_VERSION}); upgrade loopwright to read this transcript"
            )
        kind = record.get("kind")
        if kind not in ENTRY_KINDS:
            raise EntryFormatError(f"unknown entry kind {kind!r}")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            raise EntryFormatError("entry payload must be a JSON object")
        try:
            return cls(
                kind=kind,
                session_id=str(record["session_id"]),
                payload=payload,
                uuid=str(record["uuid"]),
                parent_uuid=record.get("parent_uuid"),
                timestamp=float(record.get("timestamp") or 0.0),
                v=version,
            )
        except KeyError as exc:
            raise EntryFormatError(f"entry is missing the field {exc.args[0]!r}") from exc

    def with_session(self, session_id: str) -> Entry:
        return Entry(
            self.kind,
            session_id,
            self.payload,
            self.uuid,
            self.parent_uuid,
            self.timestamp,
            self.v,
        )


def message_entry(session_id: str, message: Message, parent_uuid: str | None) -> Entry:
    return Entry("message", session_id, message.to_dict(), message.uuid, parent_uuid)


def meta_entry(session_id: str, **fields: Any) -> Entry:
    """A session-wide fact: ``cwd=``, ``title=``, ``tag=``, ``forked_from=``…"""
    return Entry("meta", session_id, dict(fields))
