"""MCP tools as loopwright Tools: names, schemas, and results in our content blocks.

Result conversion is duck-typed on the ``type`` tag of each MCP content block, so this
module does not import the optional ``mcp`` package.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from loopwright.errors import ToolInputError
from loopwright.messages import ImageBlock, SystemMessage, TextBlock
from loopwright.tools.base import MinimalTool, ToolBase, ToolContext, ToolResult, ToolWrapper

# Provider APIs accept tool names matching [a-zA-Z0-9_-]; anything else would be rejected
# by the model endpoint, so it is replaced here, once, where the name is made.
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def mcp_tool_name(server: str, tool: str) -> str:
    """The name the model sees: ``mcp__<server>__<tool>``."""
    return f"mcp__{_UNSAFE_NAME_CHARS.sub('_', server)}__{_UNSAFE_NAME_CHARS.sub('_', tool)}"


def object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """A tool input schema providers accept: always an object at the root."""
    if not schema:
        return {"type": "object", "properties": {}}
    if "type" not in schema:
        return {"type": "object", **schema}
    return schema


# What the mcp client calls with progress notifications: (progress, total, message).
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
# The manager's per-server caller: (tool name on the server, arguments, progress) -> result.
ServerCaller = Callable[[str, dict[str, Any], ProgressFn | None], Awaitable[ToolResult]]


@dataclass(frozen=True, slots=True)
class McpTool(ToolBase):
    """A tool of an external MCP server; calls go to the task that owns the connection."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    server: str
    server_tool_name: str
    caller: ServerCaller

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return await self.caller(self.server_tool_name, input, progress_emitter(self, ctx))


def progress_emitter(tool: McpTool, ctx: ToolContext) -> ProgressFn | None:
    """Progress notifications of a call as ``mcp_progress`` system messages in the stream."""
    emit = getattr(ctx, "emit", None)  # compat layers call without a context
    if emit is None:
        return None

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        data: dict[str, Any] = {
            "server": tool.server,
            "tool": tool.server_tool_name,
            "tool_use_id": ctx.tool_use_id,
            "progress": progress,
            "total": total,
            "message": message,
        }
        await emit(SystemMessage("mcp_progress", data))

    return on_progress


@dataclass(frozen=True, slots=True)
class SdkTool(ToolWrapper):
    """A tool of an in-process server, renamed ``mcp__<server>__<tool>``; called directly.
    The rest (schema, timeout, idempotence) is the tool's own."""

    server_name: str  # mcp__<server>__<tool>
    server: str
    inner: MinimalTool

    @property
    def wrapped(self) -> MinimalTool:
        return self.inner

    @property
    def name(self) -> str:
        return self.server_name

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        # As in the reference SDK, a handler exception is the tool's error result, not a crash.
        try:
            return await self.inner.call(input, ctx)
        except ToolInputError as exc:
            return ToolResult.error(str(exc))
        except Exception as exc:
            return ToolResult.error(f"{type(exc).__name__}: {exc}")


def convert_call_result(result: Any) -> ToolResult:
    """An MCP ``CallToolResult`` as a ToolResult.

    With ``structuredContent`` the JSON replaces the text blocks (they are assumed to
    duplicate it, as the reference SDK does); images are kept either way.
    """
    blocks: list[TextBlock | ImageBlock] = []
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        blocks.append(TextBlock(json.dumps(structured, ensure_ascii=False, default=str)))
    for item in getattr(result, "content", None) or []:
        block = _convert_block(item)
        if block is None or (structured is not None and isinstance(block, TextBlock)):
            continue
        blocks.append(block)
    is_error = bool(getattr(result, "is_error", False))
    if not blocks:
        return ToolResult("(the tool returned no content)", is_error=is_error)
    if all(isinstance(b, TextBlock) for b in blocks):
        return ToolResult("\n".join(b.text for b in blocks if isinstance(b, TextBlock)), is_error)
    return ToolResult(blocks, is_error=is_error)


def _convert_block(item: Any) -> TextBlock | ImageBlock | None:
    kind = getattr(item, "type", None)
    if kind == "text":
        return TextBlock(str(item.text))
    if kind == "image":
        return ImageBlock(str(item.mime_type), str(item.data))
    if kind == "audio":
        # No provider takes audio in tool results; say so rather than drop it silently.
        return TextBlock(f"[audio content ({item.mime_type}) omitted: not supported in results]")
    if kind == "resource_link":
        mime = f", {item.mime_type}" if getattr(item, "mime_type", None) else ""
        return TextBlock(f"[resource link: {item.name} <{item.uri}>{mime}]")
    if kind == "resource":
        return _convert_embedded(item.resource)
    return None


def _convert_embedded(resource: Any) -> TextBlock | ImageBlock:
    mime = getattr(resource, "mime_type", None) or ""
    text = getattr(resource, "text", None)
    if text is not None:
        return TextBlock(f"[resource {resource.uri}]\n{text}")
    blob = str(getattr(resource, "blob", ""))
    if mime.startswith("image/"):
        return ImageBlock(mime, blob)
    return TextBlock(
        f"[binary resource {resource.uri} ({mime or 'unknown type'}, "
        f"{len(blob) * 3 // 4} bytes) omitted]"
    )
