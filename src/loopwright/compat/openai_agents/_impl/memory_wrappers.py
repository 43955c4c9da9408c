"""Session wrappers of the OpenAI Agents layer: ``EncryptedSession`` (items encrypted at
rest, with a time to live) and ``OpenAIResponsesCompactionSession`` (history compacted into
a summary once it grows; the summary is written by the session's model through loopwright,
not by OpenAI's ``responses.compact`` endpoint)."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from typing import Any, TypedDict

from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.memory import SessionABC
from loopwright.compat.openai_agents._impl.models import native_model
from loopwright.messages import TextBlock, UserMessage
from loopwright.models.base import ModelRequest, ModelResponse


class EncryptedEnvelope(TypedDict):
    __enc__: int
    v: int
    kid: str
    payload: str


def _fernet(key: str | bytes, session_id: str) -> Any:
    try:
        # cryptography is optional (the encryption extra): loaded when a session asks.
        from cryptography.fernet import Fernet
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise UserError(
            "EncryptedSession needs the 'cryptography' package: pip install cryptography"
        ) from exc
    master = key.encode("utf-8") if isinstance(key, str) else key
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=session_id.encode("utf-8"),
        info=b"agents.session-store.hkdf.v1",
    ).derive(master)
    return Fernet(base64.urlsafe_b64encode(derived))


class EncryptedSession(SessionABC):
    """Wraps a session: items are stored as encrypted envelopes and expire after ``ttl``
    seconds (expired or undecryptable items are skipped when reading)."""

    def __init__(
        self,
        session_id: str,
        underlying_session: Any,
        encryption_key: str | bytes,
        ttl: int = 600,
    ) -> None:
        self.session_id = session_id
        self.underlying_session = underlying_session
        self.ttl = ttl
        self._cipher = _fernet(encryption_key, session_id)

    def _wrap(self, item: dict[str, Any]) -> EncryptedEnvelope:
        token = self._cipher.encrypt(json.dumps(item, default=str).encode("utf-8"))
        return {"__enc__": 1, "v": 1, "kid": "hkdf-1", "payload": token.decode("ascii")}

    def _unwrap(self, item: Any) -> dict[str, Any] | None:
        if not (isinstance(item, dict) and item.get("__enc__") == 1):
            return item  # type: ignore[return-value]
        from cryptography.fernet import InvalidToken  # optional, as above

        try:
            plain = self._cipher.decrypt(str(item["payload"]).encode("ascii"), ttl=self.ttl)
        except InvalidToken:
            return None  # expired, or written with another key
        return json.loads(plain)  # type: ignore[no-any-return]

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        stored = await self.underlying_session.get_items()
        items = [i for i in (self._unwrap(s) for s in stored) if i is not None]
        return items[-limit:] if limit else items

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        await self.underlying_session.add_items([self._wrap(i) for i in items])

    async def pop_item(self) -> dict[str, Any] | None:
        while True:
            item = await self.underlying_session.pop_item()
            if item is None:
                return None
            unwrapped = self._unwrap(item)
            if unwrapped is not None:
                return unwrapped

    async def clear_session(self) -> None:
        await self.underlying_session.clear_session()


_SUMMARY_SYSTEM = (
    "You compact conversations. Write a concise summary of the conversation you are given "
    "that keeps every fact, name, number and open question needed to continue it."
)


class OpenAIResponsesCompactionSession(SessionABC):
    """Wraps a session and replaces its history by a summary when ``should_trigger_compaction``
    says so (default: 10 or more items since the last compaction); user messages are kept."""

    def __init__(
        self,
        session_id: str,
        underlying_session: Any,
        *,
        model: str = "gpt-4.1",
        compaction_mode: str = "auto",
        should_trigger_compaction: Callable[[dict[str, Any]], bool] | None = None,
        client: Any = None,
    ) -> None:
        self.session_id = session_id
        self.underlying_session = underlying_session
        self.model = model
        self.compaction_mode = compaction_mode
        self._should = should_trigger_compaction or _ten_or_more

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        return list(await self.underlying_session.get_items(limit))

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        await self.underlying_session.add_items(items)
        everything = await self.get_items()
        candidates = _after_last_compaction(everything)
        if self._should({"compaction_candidate_items": candidates, "session_items": everything}):
            await self.run_compaction()

    async def run_compaction(self, args: dict[str, Any] | None = None) -> None:
        items = await self.get_items()
        if not items:
            return
        summary = await self._summarise(items)
        kept = [i for i in items if i.get("role") == "user" and i.get("type") in (None, "message")]
        compaction = {"type": "compaction", "id": f"cmp_{uuid.uuid4().hex}", "summary": summary}
        await self.underlying_session.clear_session()
        await self.underlying_session.add_items([*kept, compaction])

    async def _summarise(self, items: list[dict[str, Any]]) -> str:

        model = native_model(self.model)
        transcript = "\n".join(json.dumps(i, default=str) for i in items)
        request = ModelRequest(
            model=model.name,
            system=_SUMMARY_SYSTEM,
            messages=[UserMessage(f"Summarise this conversation:\n{transcript}")],
        )
        text = ""
        try:
            async for event in model.stream(request):
                if isinstance(event, ModelResponse):
                    text = "".join(b.text for b in event.content if isinstance(b, TextBlock))
        finally:
            await model.aclose()
        return text

    async def pop_item(self) -> dict[str, Any] | None:
        return await self.underlying_session.pop_item()  # type: ignore[no-any-return]

    async def clear_session(self) -> None:
        await self.underlying_session.clear_session()


def _ten_or_more(context: dict[str, Any]) -> bool:
    return len(context["compaction_candidate_items"]) >= 10


def _after_last_compaction(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for position in range(len(items) - 1, -1, -1):
        if items[position].get("type") == "compaction":
            return items[position + 1 :]
    return [i for i in items if i.get("role") != "user"]
