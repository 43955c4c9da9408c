"""Conversation: what was said, and the transcript it is written to.

``append`` is the only way a message joins the history, and it records the message at
once, so a tool call closed on an interrupt or a crash is on disk like any other message.
Messages that are not part of the history (system notices, results) are recorded with
``record`` when the loop yields them; each message is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from loopwright.context.compaction import CompactionResult
from loopwright.messages import (
    ConversationMessage,
    Message,
    ResultMessage,
    StreamEvent,
    ToolResultBlock,
    UserMessage,
)
from loopwright.stores import SessionRecorder
from loopwright.stores.base import SessionStore, WriterLock
from loopwright.stores.recorder import CompactTrigger

if TYPE_CHECKING:
    from loopwright.stores.transcript import StateSnapshot


class TranscriptWriteError(Exception):
    """The transcript could not be written (a full disk, a dropped database connection)."""


@dataclass(slots=True)
class Conversation:
    messages: list[ConversationMessage] = field(default_factory=list[ConversationMessage])
    # Where messages are recorded (None when not persisted, and for subagents).
    recorder: SessionRecorder | None = None
    # Taken at each turn end, so a resumed session knows its cwd, totals and turns.
    snapshot: Callable[[], StateSnapshot] | None = None
    # Where the transcript lives, for hooks (file stores only).
    transcript_path: str | None = None
    # Held while this process is the session's one writer.
    lock: WriterLock | None = None
    # A store we opened ourselves is closed with the session; one the user passed is not.
    owns_store: bool = False
    _finished_store: SessionStore | None = None
    _last_recorded: str | None = None

    @property
    def last(self) -> ConversationMessage | None:
        return self.messages[-1] if self.messages else None

    async def append(self, message: ConversationMessage) -> ConversationMessage:
        """Add to the history and record it; returns the message (to be yielded)."""
        self.messages.append(message)
        await self.record(message)
        return message

    def replace(self, messages: Sequence[ConversationMessage]) -> None:
        """A compacted or filtered history (the transcript keeps its own entry for it)."""
        self.messages[:] = messages

    async def record(self, message: Message) -> None:
        """Write one message (once); at each turn end also snapshot state and sync."""
        if self.recorder is None or isinstance(message, StreamEvent):
            return
        if message.uuid == self._last_recorded:
            return  # appended (and recorded) just before it was yielded
        try:
            await self.recorder.message(message)
            self._last_recorded = message.uuid
            if _ends_turn(message):
                if self.snapshot is not None:
                    await self.recorder.state(self.snapshot())
                await self.recorder.sync()
        except Exception as exc:
            raise TranscriptWriteError(f"{type(exc).__name__}: {exc}") from exc

    async def compacted(self, result: CompactionResult, trigger: CompactTrigger) -> None:
        """The history after a summarising compaction, with its entry in the transcript."""
        self.replace(result.messages)
        if self.recorder is None:
            return
        try:
            await self.recorder.compaction(
                list(result.messages),
                trigger=trigger,
                pre_tokens=result.pre_tokens,
                post_tokens=result.post_tokens,
                summary=result.summary,
                usage=result.usage,
                model=result.model,
            )
        except Exception as exc:
            raise TranscriptWriteError(f"{type(exc).__name__}: {exc}") from exc

    def stop_recording(self) -> None:
        """The transcript failed: nothing more is written to it."""
        self.recorder = None

    async def stop_writing(self) -> None:
        """Nothing more goes into the transcript: make it durable and release the writer
        lock, so another run may resume the session at once."""
        if self.recorder is not None:
            await self.recorder.sync()
            self._finished_store = self.recorder.store
            self.recorder = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    async def aclose(self) -> None:
        await self.stop_writing()
        store, self._finished_store = self._finished_store, None
        if store is not None and self.owns_store:
            await store.aclose()


def _ends_turn(message: Message) -> bool:
    return isinstance(message, ResultMessage) or (
        isinstance(message, UserMessage)
        and message.parent_tool_use_id is None
        and any(isinstance(b, ToolResultBlock) for b in message.blocks)
    )
