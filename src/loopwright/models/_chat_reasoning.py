"""Reasoning and usage as compatible Chat Completions servers send them.

There is no standard: DeepSeek, vLLM and Moonshot stream ``delta.reasoning_content``;
OpenRouter, Ollama and Groq ``delta.reasoning``; OpenRouter also
``delta.reasoning_details[]`` (text, summary or encrypted entries, which it wants back on
the next request); models served without a reasoning parser write ``<think>…</think>``
at the start of the content. Usage comes in ``usage``, in a choice, or in a vendor field
(``x_groq.usage``), with cached tokens under OpenAI's or DeepSeek's names.
"""

from __future__ import annotations

from typing import Any, cast

from loopwright.messages import Usage
from loopwright.models._openai_common import usage_from

_OPEN, _CLOSE = "<think>", "</think>"


def delta_reasoning(delta: dict[str, Any]) -> str:
    """The reasoning text of one delta, whichever field carries it (never counted twice:
    OpenRouter sends the same text in ``reasoning`` and ``reasoning_details``)."""
    for field in ("reasoning_content", "reasoning"):
        value = delta.get(field)
        if isinstance(value, str) and value:
            return value
    details = delta.get("reasoning_details")
    if not isinstance(details, list):
        return ""
    parts: list[str] = []
    for entry in cast(list[Any], details):
        if isinstance(entry, dict):
            text = cast(dict[str, Any], entry).get("text") or cast(dict[str, Any], entry).get(
                "summary"
            )
            if isinstance(text, str):
                parts.append(text)
    return "".join(parts)


def merge_reasoning_details(kept: list[dict[str, Any]], delta: dict[str, Any]) -> None:
    """Fold streamed ``reasoning_details`` fragments into whole entries (by ``index``)."""
    details = delta.get("reasoning_details")
    if not isinstance(details, list):
        return
    for raw in cast(list[Any], details):
        if not isinstance(raw, dict):
            continue
        entry = cast(dict[str, Any], raw)
        index = entry.get("index", len(kept))
        target = next((k for k in kept if k.get("index", -1) == index), None)
        if target is None:
            kept.append(dict(entry))
            continue
        for key, value in entry.items():
            if key in ("text", "summary", "data") and isinstance(value, str):
                target[key] = str(target.get(key) or "") + value
            elif value is not None:
                target[key] = value


class ThinkTagSplitter:
    """Splits streamed content into ``<think>`` reasoning and answer text.

    Only a ``<think>`` at the very start (after whitespace) opens reasoning; a tag split
    across chunks is held back until it can be told apart from text.
    """

    def __init__(self) -> None:
        self._state: str = "start"
        self._pending = ""

    def feed(self, text: str) -> list[tuple[str, str]]:
        """(kind, text) pieces, kind "thinking" or "text", ready to emit."""
        self._pending += text
        out: list[tuple[str, str]] = []
        if self._state == "start":
            stripped = self._pending.lstrip()
            if _OPEN.startswith(stripped) and len(stripped) < len(_OPEN):
                return out  # could still become <think>
            if stripped.startswith(_OPEN):
                self._state, self._pending = "thinking", stripped[len(_OPEN) :]
            else:
                self._state = "text"
        if self._state == "thinking":
            end = self._pending.find(_CLOSE)
            if end < 0:
                keep = _partial_suffix(self._pending, _CLOSE)
                ready, self._pending = (
                    self._pending[: len(self._pending) - keep],
                    self._pending[len(self._pending) - keep :],
                )
                if ready:
                    out.append(("thinking", ready))
                return out
            if end:
                out.append(("thinking", self._pending[:end]))
            self._state, self._pending = "after", self._pending[end + len(_CLOSE) :]
        if self._state == "after":
            self._pending = self._pending.lstrip()
            if not self._pending:
                return out
            self._state = "text"
        if self._pending:
            out.append(("text", self._pending))
        self._pending = ""
        return out

    def flush(self) -> list[tuple[str, str]]:
        """What is left at the end of the stream (an unclosed tag's text stays reasoning)."""
        pending, self._pending = self._pending, ""
        if not pending:
            return []
        return [("thinking" if self._state == "thinking" else "text", pending)]


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that begins ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


def chunk_usage(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """The usage object of a chunk, wherever the server put it."""
    usage = chunk.get("usage")
    if isinstance(usage, dict):
        return cast(dict[str, Any], usage)
    vendor = chunk.get("x_groq")
    if isinstance(vendor, dict):
        inner = cast(dict[str, Any], vendor).get("usage")
        if isinstance(inner, dict):
            return cast(dict[str, Any], inner)
    for choice in chunk.get("choices") or ():
        if isinstance(choice, dict):
            inner = cast(dict[str, Any], choice).get("usage")
            if isinstance(inner, dict):
                return cast(dict[str, Any], inner)
    return None


def usage_of(usage: dict[str, Any] | None) -> Usage:
    if usage is None:
        return Usage()
    total_input = _int(usage.get("prompt_tokens", usage.get("input_tokens")))
    output = _int(usage.get("completion_tokens", usage.get("output_tokens")))
    details = usage.get("prompt_tokens_details")
    details = cast(dict[str, Any], details) if isinstance(details, dict) else {}
    cached = details.get("cached_tokens")
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek
    return usage_from(
        total_input=total_input,
        output=output,
        cached=_int(cached),
        cache_write=_int(details.get("cache_write_tokens")),
    )


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0
