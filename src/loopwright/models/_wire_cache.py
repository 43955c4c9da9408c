"""Each message's wire form and its JSON, kept between the requests of a conversation.

Every request carries the whole history, so converting and encoding it anew made a turn
cost O(history): at turn 200 of a tool loop, converting 400 messages and encoding 40 kB
of JSON was most of the client's time in a model call. A provider keeps what a message
became (its wire dicts, their JSON text) here and, on the next request, converts only the
messages it has not seen; :func:`json_body` then splices the kept text into the body.
The bytes sent are those ``json_content`` makes of the same body.

An entry is keyed by the message object (messages are frozen) and checked against the
blocks it was made from, so a content list changed in place is converted again. The usual
request (the previous one's messages and new ones after them) is recognised in C: the same
message objects, their blocks in a row equal to what they were (the same objects, or of
the same value). The cache holds the conversations of a provider's last few requests (one
per session that uses the provider), and only the messages of each one's latest request.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from operator import attrgetter, is_
from typing import Any, Generic, TypeVar

from loopwright.messages import AssistantMessage, ContentBlock, UserMessage

Message = AssistantMessage | UserMessage
T = TypeVar("T")

# json.dumps(value, ensure_ascii=False, separators=(",", ":")), without building the
# encoder on every call.
to_json: Callable[[Any], str] = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

# Conversations kept per provider: sessions sharing one provider object; beyond that the
# least recently used is converted afresh on its next request.
MAX_CONVERSATIONS = 16
# A conversation no request has touched for this many requests (a finished session) is
# dropped, so that a long-lived provider does not keep old histories alive.
MAX_IDLE_REQUESTS = 64


class _Entry(Generic[T]):
    __slots__ = ("blocks", "message", "value")

    def __init__(self, message: Message, blocks: str | tuple[ContentBlock, ...], value: T):
        self.message = message  # held so that its id is not reused while the entry lives
        self.blocks = blocks
        self.value = value


class _Conversation(Generic[T]):
    __slots__ = ("blocks", "entries", "first", "last_used", "messages", "values")

    def __init__(self, first: Message) -> None:
        self.first = first
        self.entries: dict[int, _Entry[T]] = {}
        self.last_used = 0
        # The latest request's messages, their blocks in a row and what they became.
        self.messages: tuple[Message, ...] = ()
        self.blocks: list[str | ContentBlock] = []
        self.values: list[T] = []


def _blocks(message: Message) -> str | tuple[ContentBlock, ...]:
    content = message.content
    return content if isinstance(content, str) else tuple(content)


_content = attrgetter("content")


def _all_blocks(messages: Iterable[Message]) -> list[str | ContentBlock]:
    return list(chain.from_iterable(map(_content, messages)))


class WireCache(Generic[T]):
    """``convert`` applied to each message of a request, reusing earlier requests' results."""

    def __init__(self, convert: Callable[[Message], T]) -> None:
        self._convert = convert
        self._conversations: OrderedDict[int, _Conversation[T]] = OrderedDict()
        self._requests = 0

    def convert_all(self, messages: Sequence[Message]) -> list[T]:
        if not messages:
            return []
        self._requests += 1
        conversation = self._conversation(messages[0])
        seen = len(conversation.messages)
        # The usual request: the latest one's messages, their blocks as they were (compared
        # by identity, else by value, in C), and new messages after them.
        if (
            len(messages) >= seen
            and all(map(is_, messages, conversation.messages))
            and _all_blocks(messages[:seen]) == conversation.blocks
        ):
            new = messages[seen:]
            values = conversation.values + self._converted(conversation, new, keep=True)
            conversation.blocks += _all_blocks(new)
        else:
            values = self._converted(conversation, messages, keep=False)
            conversation.blocks = _all_blocks(messages)
        conversation.messages = tuple(messages)
        conversation.values = values
        return list(values)

    def _converted(
        self, conversation: _Conversation[T], messages: Sequence[Message], *, keep: bool
    ) -> list[T]:
        """What ``messages`` become: kept entries when their blocks are the same objects.
        Entries of the conversation's other messages are dropped unless ``keep``."""
        kept = conversation.entries
        entries: dict[int, _Entry[T]] = kept if keep else {}
        values: list[T] = []
        for message in messages:
            key = id(message)
            entry = kept.get(key) or entries.get(key)  # or twice in one request
            if entry is not None:
                content, blocks = message.content, entry.blocks
                if content is not blocks and (
                    isinstance(content, str)
                    or len(content) != len(blocks)
                    or not all(map(is_, content, blocks))
                ):
                    entry = None
            if entry is None:
                entry = _Entry(message, _blocks(message), self._convert(message))
            entries[key] = entry
            values.append(entry.value)
        conversation.entries = entries
        return values

    def clear(self) -> None:
        self._conversations.clear()

    def _conversation(self, first: Message) -> _Conversation[T]:
        conversations = self._conversations
        key = id(first)
        conversation = conversations.get(key)
        if conversation is None or conversation.first is not first:
            conversation = conversations[key] = _Conversation(first)
        conversations.move_to_end(key)
        conversation.last_used = self._requests
        oldest = self._requests - MAX_IDLE_REQUESTS
        while len(conversations) > MAX_CONVERSATIONS or (
            next(iter(conversations.values())).last_used < oldest
        ):
            conversations.popitem(last=False)
        return conversation


def json_body(body: Mapping[str, Any], key: str, value: object, text: str) -> str:
    """``body`` as ``to_json`` writes it, with ``text`` standing for ``value`` under ``key``
    when ``body[key]`` is still ``value`` (the request's settings may have replaced it)."""
    if body.get(key) is not value or not all(isinstance(k, str) for k in body):
        return to_json(body)
    # Exactly what the encoder writes for a dict: "{", "key":value pairs joined by ",", "}".
    pairs = [f"{to_json(k)}:{text if k == key else to_json(v)}" for k, v in body.items()]
    return "{" + ",".join(pairs) + "}"
