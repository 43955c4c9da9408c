"""Input items of the OpenAI Agents SDK (Responses API shapes) as loopwright messages.

Accepted: user/system/developer/assistant messages (string content or content parts:
``input_text``, ``output_text``, ``input_image``, ``input_file``, ``refusal``),
``function_call`` and ``function_call_output`` items, and ``reasoning`` items. Images by
URL and non-PDF files cannot travel inline and reach the model as a note naming them; PDF
files reach it as their extracted text. Other item types raise a ``UserError`` that says
what to send instead.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ConversationMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)


@dataclass
class Conversation:
    """Input items turned into loopwright's history; ``system`` collects system and
    developer messages, which go to the system prompt."""

    messages: list[ConversationMessage] = field(default_factory=list[ConversationMessage])
    system: list[str] = field(default_factory=list[str])


def to_conversation(items: Sequence[Any]) -> Conversation:
    conversation = Conversation()
    for raw in items:
        item = _as_mapping(raw)
        kind = item.get("type")
        role = item.get("role")
        if kind in (None, "message") and role in ("system", "developer"):
            conversation.system.append(_plain_text(item.get("content")))
        elif kind in (None, "message") and role == "user":
            _add_user(conversation.messages, _user_blocks(item.get("content")))
        elif kind in (None, "message") and role == "assistant":
            _add_assistant(conversation.messages, _assistant_blocks(item.get("content")), item)
        elif kind == "function_call":
            _add_assistant(conversation.messages, [_tool_use(item)], item)
        elif kind == "function_call_output":
            block = ToolResultBlock(str(item.get("call_id")), _output_text(item.get("output")))
            _add_user(conversation.messages, [block])
        elif kind == "compaction":  # a summary written by OpenAIResponsesCompactionSession
            summary = f"Summary of the conversation so far:\n{item.get('summary', '')}"
            _add_user(conversation.messages, [TextBlock(summary)])
        elif kind == "reasoning":
            summary = "".join(_text_of(p) for p in item.get("summary") or [])
            _add_assistant(conversation.messages, [ThinkingBlock(summary, signature="")], item)
        else:
            raise UserError(
                f"input item {item!r} is not supported by loopwright's openai_agents layer; "
                "pass messages (role user/assistant/system), function_call and "
                "function_call_output items"
            )
    conversation.messages = [_plain(m) for m in conversation.messages]
    return conversation


def _plain(message: ConversationMessage) -> ConversationMessage:
    """A user turn of one text is sent as plain text, as a string prompt is."""
    blocks = message.content
    if isinstance(message, UserMessage) and len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return UserMessage(blocks[0].text)
    return message


def _as_mapping(raw: Any) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw  # type: ignore[return-value]
    dump = getattr(raw, "model_dump", None)
    if callable(dump):
        return dump(exclude_unset=True)  # type: ignore[no-any-return]
    raise UserError(f"input items must be dicts (Responses API input items), got {raw!r}")


def _add_user(messages: list[ConversationMessage], blocks: list[ContentBlock]) -> None:
    last = messages[-1] if messages else None
    if isinstance(last, UserMessage) and _mergeable(last, blocks):
        messages[-1] = UserMessage([*last.blocks, *blocks])
    else:
        messages.append(UserMessage(blocks))


def _mergeable(last: UserMessage, blocks: list[ContentBlock]) -> bool:
    # Tool results stay together; a prompt after tool results starts a new turn.
    last_results = any(isinstance(b, ToolResultBlock) for b in last.blocks)
    new_results = any(isinstance(b, ToolResultBlock) for b in blocks)
    return last_results == new_results


def _add_assistant(
    messages: list[ConversationMessage], blocks: list[ContentBlock], item: Mapping[str, Any]
) -> None:
    last = messages[-1] if messages else None
    if (
        isinstance(last, AssistantMessage)
        and not any(isinstance(b, ToolUseBlock) for b in last.content)
    ) or (isinstance(last, AssistantMessage) and all(isinstance(b, ToolUseBlock) for b in blocks)):
        messages[-1] = AssistantMessage([*last.content, *blocks], message_id=last.message_id)
    else:
        item_id = item.get("id")
        messages.append(AssistantMessage(blocks, message_id=str(item_id) if item_id else None))


def _tool_use(item: Mapping[str, Any]) -> ToolUseBlock:
    arguments = str(item.get("arguments") or "{}")
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        return ToolUseBlock(
            str(item.get("call_id")), str(item.get("name")), {}, raw_input=arguments
        )
    return ToolUseBlock(str(item.get("call_id")), str(item.get("name")), parsed)


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(_text_of(p) for p in output)  # type: ignore[arg-type]
    return json.dumps(output, default=str)


def _text_of(part: Any) -> str:
    if isinstance(part, Mapping):
        return str(part.get("text") or part.get("refusal") or "")  # type: ignore[arg-type]
    return str(getattr(part, "text", "") or "")


def _plain_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(_text_of(p) for p in content or [])


def _assistant_blocks(content: Any) -> list[ContentBlock]:
    text = _plain_text(content)
    return [TextBlock(text)] if text else []


def _user_blocks(content: Any) -> list[ContentBlock]:
    if isinstance(content, str):
        return [TextBlock(content)]
    blocks: list[ContentBlock] = []
    for raw in content or []:
        part = _as_mapping(raw)
        match part.get("type"):
            case "input_text" | "output_text" | "text":
                blocks.append(TextBlock(str(part.get("text", ""))))
            case "input_image":
                blocks.append(_image(part))
            case "input_file":
                blocks.append(_file(part))
            case other:
                raise UserError(
                    f"content part type {other!r} is not supported; use input_text, "
                    "input_image or input_file"
                )
    return blocks


def _image(part: Mapping[str, Any]) -> ContentBlock:
    url = str(part.get("image_url") or "")
    if url.startswith("data:") and ";base64," in url:
        header, data = url.split(";base64,", 1)
        return ImageBlock(header.removeprefix("data:"), data)
    # loopwright sends images inline; a URL or file id is named for the model instead.
    return TextBlock(f"[image: {url or part.get('file_id')}]")


def _file(part: Mapping[str, Any]) -> ContentBlock:
    name = str(part.get("filename") or part.get("file_url") or part.get("file_id") or "file")
    data = str(part.get("file_data") or "")
    if ";base64," not in data:
        return TextBlock(f"[file: {name}]")
    header, encoded = data.split(";base64,", 1)
    try:
        raw = base64.b64decode(encoded)
    except (binascii.Error, ValueError):
        return TextBlock(f"[file: {name} (not valid base64)]")
    if header.endswith("application/pdf"):
        return TextBlock(f"[file: {name}]\n{_pdf_text(raw)}")
    try:
        return TextBlock(f"[file: {name}]\n{raw.decode('utf-8')}")
    except UnicodeDecodeError:
        return TextBlock(f"[file: {name} ({len(raw)} bytes of binary data)]")


def _pdf_text(raw: bytes) -> str:
    from pypdf import PdfReader  # optional (the pdf extra): loaded when a PDF comes

    reader = PdfReader(io.BytesIO(raw))
    return "\n".join(page.extract_text() or "" for page in reader.pages)
