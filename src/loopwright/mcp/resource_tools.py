"""ListMcpResources and ReadMcpResource: the model's way to MCP servers' resources.

Both are read-only and go through the permission gate like any tool; a ``mcp__<server>``
rule covers them for that server (see permissions/matching.py). Text comes back as text
(cut and spilled by the executor when long, as for every tool), images as image blocks,
and other binary contents are saved to the session's tool-output directory, because a
model cannot read base64 and a blob would only crowd the context.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from loopwright.errors import ConfigurationError
from loopwright.mcp.catalog import list_resources, read_resource
from loopwright.mcp.client import McpManager
from loopwright.mcp.errors import McpRequestError
from loopwright.mcp.features import ResourceContent
from loopwright.messages import ImageBlock, TextBlock
from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.tools.spill import session_output_dir

LIST_RESOURCES = "ListMcpResources"
READ_RESOURCE = "ReadMcpResource"
RESOURCE_TOOLS = (LIST_RESOURCES, READ_RESOURCE)
# Images above this go to a file too: providers reject larger ones in a tool result.
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


@dataclass(frozen=True, slots=True)
class ListMcpResourcesTool(ToolBase):
    manager: McpManager
    name: str = LIST_RESOURCES
    description: str = (
        "List the resources (and resource templates) that connected MCP servers offer. "
        "Pass server to list one server's; read one with ReadMcpResource."
    )
    read_only: bool = True

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "server": {"type": "string", "description": "Only this MCP server's resources"}
            },
        }

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        server = input.get("server") or None
        try:
            listing = await list_resources(self.manager, server)
        except (ConfigurationError, McpRequestError) as exc:
            return ToolResult.error(str(exc))
        data: dict[str, Any] = {"resources": [r.to_dict() for r in listing.resources]}
        if listing.problems:
            data["unavailable"] = list(listing.problems)
        if not listing.resources and not listing.problems:
            return ToolResult("No resources found on the connected MCP servers.")
        return ToolResult(json.dumps(data, ensure_ascii=False, indent=1))


@dataclass(frozen=True, slots=True)
class ReadMcpResourceTool(ToolBase):
    manager: McpManager
    name: str = READ_RESOURCE
    description: str = (
        "Read a resource of an MCP server by its URI (from ListMcpResources, or a URI "
        "that fills in one of its resource templates)."
    )
    read_only: bool = True

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "server": {"type": "string", "description": "The MCP server's name"},
                "uri": {"type": "string", "description": "The resource URI"},
            },
            "required": ["server", "uri"],
        }

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        server, uri = input.get("server"), input.get("uri")
        if not isinstance(server, str) or not isinstance(uri, str):
            return ToolResult.error("ReadMcpResource needs server and uri, both strings")
        try:
            contents = await read_resource(self.manager, server, uri)
        except (ConfigurationError, McpRequestError) as exc:
            return ToolResult.error(str(exc))
        return contents_result(server, contents, ctx.session_id)


def contents_result(server: str, contents: list[ResourceContent], session_id: str) -> ToolResult:
    """Resource contents as a tool result: text, image blocks, files for other binaries."""
    blocks: list[TextBlock | ImageBlock] = []
    for item in contents:
        blocks.extend(content_blocks(server, item, session_id))
    if not blocks:
        return ToolResult("(the resource is empty)")
    if all(isinstance(b, TextBlock) for b in blocks):
        return ToolResult("\n\n".join(b.text for b in blocks if isinstance(b, TextBlock)))
    return ToolResult(blocks)


def content_blocks(
    server: str, item: ResourceContent, session_id: str
) -> list[TextBlock | ImageBlock]:
    if item.text is not None:
        return [TextBlock(item.text)]
    mime = item.mime_type or "application/octet-stream"
    if mime in _IMAGE_TYPES and item.size <= MAX_IMAGE_BYTES:
        return [TextBlock(f"[image {item.uri} ({mime})]"), ImageBlock(mime, item.blob or "")]
    path = _save_blob(session_id, item)
    return [
        TextBlock(
            f"[binary resource {item.uri} from {server!r} ({mime}, {item.size} bytes) saved "
            f"to {path}; open it with a tool that reads this format]"
        )
    ]


def _save_blob(session_id: str, item: ResourceContent) -> str:
    import tempfile

    directory = session_output_dir(session_id or "no-session")
    fd, name = tempfile.mkstemp(prefix="mcp-resource-", suffix=".bin", dir=directory)
    with open(fd, "wb") as handle:
        handle.write(base64.b64decode(item.blob or ""))
    return name
