"""What every HTTP provider shares: its base class, its clients per event loop, its
timeouts, the request body's JSON (with each message's kept between requests) and the
Retry-After of a refusal."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import chain
from operator import attrgetter, is_
from typing import Any, Generic, Literal, Protocol, TypeVar

from loopwright.messages import AssistantMessage, ContentBlock, UserMessage
from loopwright.models._client_pool import PooledClients, shared_client
from loopwright.models.base import ModelBase
from loopwright.models.capabilities import Capabilities
from loopwright.version import VERSION

USER_AGENT = f"loopwright/{VERSION}"


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only for an HTTP date

    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())


# A provider's ``timeout`` default: 10 minutes to read, 5 s to connect (the SDKs' defaults
# too, when the SDK sends).
DEFAULT_TIMEOUT: Literal["default"] = "default"
Timeout = float | None | Literal["default"]


def timeout_arguments(timeout: Timeout) -> dict[str, Any]:
    return {} if timeout == DEFAULT_TIMEOUT else {"timeout": timeout}


def json_content(body: Mapping[str, Any]) -> bytes:
    """The request body serialised once, here.

    Handing the SDK bytes instead of a dict skips its per-request deep copy of the body
    (O(history) on every turn); our own client sends these bytes as they are.
    """
    return json_bytes(json.dumps(body, ensure_ascii=False, separators=(",", ":")))


def json_bytes(text: str) -> bytes:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) as the bytes of a request body."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate (a model's text that arrived as half a pair, a file name that
        # is not UTF-8) has no UTF-8 form: it is sent as U+FFFD, while the history and the
        # transcript keep what was received. Otherwise every later request would fail.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()


class _Closable(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_Closable)


class ClientPerLoop(Generic[ClientT]):
    """One SDK client per event loop.

    Pooled connections belong to the loop that opened them; a provider object reused
    across ``asyncio.run`` calls (``run_sync`` twice, test loops) must not reuse them.
    ``aclose()`` before a loop ends releases them cleanly.
    """

    def __init__(self, factory: Callable[[], ClientT]) -> None:
        self._factory = factory
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: ClientT | None = None

    def get(self) -> ClientT:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._factory()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.close()


def client_source(
    key: Hashable, factory: Callable[[], ClientT], *, share: bool
) -> ClientPerLoop[ClientT] | PooledClients:
    """Where a provider gets its SDK client: its own (per event loop), or the process's
    shared one for ``key`` when the provider was made from a model string."""
    if share:
        return PooledClients(shared_client(key, factory))
    return ClientPerLoop(factory)


class HttpProvider(ModelBase):
    """What every HTTP provider shares: its model id as ``name`` (used for pricing and
    reports), its capabilities, and its clients — ours and the SDK's, each one per event
    loop or the process's shared one — released by ``aclose()``.

    ``created_by_loopwright`` is true for providers made from a model string: the runtime
    closes those at the end of a session, and leaves providers the user built alone.
    """

    _model: str
    _clients: ClientPerLoop[Any] | PooledClients
    _http_clients: ClientPerLoop[Any] | PooledClients
    capabilities: Capabilities
    created_by_loopwright: bool = False

    @property
    def context_window(self) -> int:
        return self.capabilities.context_window

    @property
    def supports_reasoning(self) -> bool:
        return self.capabilities.reasoning

    @property
    def name(self) -> str:
        return self._model

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._model!r})"

    async def aclose(self) -> None:
        """Close this event loop's HTTP connections (call before the loop ends)."""
        await self._http_clients.aclose()
        await self._clients.aclose()


# --------------------------------------------------------------------------- wire cache
# Each message's wire form and its JSON, kept between the requests of a conversation.
#
# Every request carries the whole history, so converting and encoding it anew made a turn
# cost O(history): at turn 200 of a tool loop, converting 400 messages and encoding 40 kB
# of JSON was most of the client's time in a model call. A provider keeps what a message
# became (its wire dicts, their JSON text) here and, on the next request, converts only the
# messages it has not seen; :func:`json_body` then splices the kept text into the body.
# The bytes sent are those ``json_content`` makes of the same body.
#
# An entry is keyed by the message object (messages are frozen) and checked against the
# blocks it was made from, so a content list changed in place is converted again. The usual
# request (the previous one's messages and new ones after them) is recognised in C: the same
# message objects, their blocks in a row equal to what they were (the same objects, or of
# the same value). The cache holds the conversations of a provider's last few requests (one
# per session that uses the provider), and only the messages of each one's latest request.

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
        # A provider object may serve event loops in several threads at once.
        self._lock = threading.Lock()

    def convert_all(self, messages: Sequence[Message]) -> list[T]:
        if not messages:
            return []
        with self._lock:
            return self._convert_all(messages)

    def _convert_all(self, messages: Sequence[Message]) -> list[T]:
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
        with self._lock:
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
