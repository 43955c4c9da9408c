"""Anthropic content blocks as they stream: started from ``content_block_start``, grown by
deltas, finished into our content blocks.

Blocks loopwright does not execute — hosted (server) tool calls, their results, and any
block type newer than this code — are kept verbatim as ServerToolBlocks, so the next
request sends them back exactly as Claude wrote them.
"""

from __future__ import annotations

import json
from typing import Any, cast

from loopwright.messages import (
    ContentBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from loopwright.models._anthropic_wire import PROVIDER
from loopwright.models._tool_arguments import tool_use_from_arguments


def start_block(block: dict[str, Any]) -> dict[str, Any]:
    """The growing state of one block from its ``content_block_start`` JSON."""
    match block.get("type"):
        case "text":
            citations = list(block.get("citations") or ())
            return {"type": "text", "text": [block.get("text", "")], "citations": citations}
        case "thinking":
            return {
                "type": "thinking",
                "text": [block.get("thinking", "")],
                "signature": block.get("signature"),
            }
        case "redacted_thinking":
            return {"type": "redacted_thinking", "data": block.get("data")}
        case "tool_use":
            # Anthropic starts with {} and streams the input; some compatible servers
            # put all of it here and stream nothing.
            return {
                "type": "tool_use",
                "id": block["id"],
                "name": block["name"],
                "json": [],
                "start_input": block.get("input"),
            }
        case _:
            return {"type": "server", "wire": dict(block), "json": []}


def finish_block(block: dict[str, Any]) -> ContentBlock | None:
    match block["type"]:
        case "text":
            text = "".join(block["text"])
            if block["citations"]:
                data = {"provider": PROVIDER, "citations": block["citations"]}
                return TextBlock(text, provider_data=data)
            return TextBlock(text)
        case "thinking":
            return ThinkingBlock(
                "".join(block["text"]),
                block["signature"] or None,
                provider_data={"provider": PROVIDER},
            )
        case "redacted_thinking":
            return ThinkingBlock(
                "", None, provider_data={"provider": PROVIDER, "redacted_data": block["data"]}
            )
        case "tool_use":
            streamed = "".join(block["json"])
            start_input = block.get("start_input")
            if not streamed.strip() and isinstance(start_input, dict) and start_input:
                return ToolUseBlock(
                    block["id"], block["name"], dict(cast(dict[str, Any], start_input))
                )
            return tool_use_from_arguments(block["id"], block["name"], streamed)
        case _:
            return server_block(block["wire"], "".join(block["json"]))


def server_block(wire: dict[str, Any], streamed_input: str) -> ServerToolBlock:
    """A hosted-tool call (``server_tool_use``, input streamed like a tool's) or result
    (``web_search_tool_result`` …), kept whole for the next request."""
    kind: str = str(wire.get("type", ""))
    if streamed_input.strip():
        try:
            wire = {**wire, "input": json.loads(streamed_input)}
        except json.JSONDecodeError:
            pass  # keep the start input; the API would refuse broken JSON anyway
    tool_input = wire.get("input")
    inputs = cast(dict[str, Any], tool_input) if isinstance(tool_input, dict) else {}
    if kind.endswith("_tool_result"):
        name = kind.removesuffix("_tool_result")
        return ServerToolBlock(
            str(wire.get("tool_use_id", "")),
            name,
            "result",
            provider_data={"provider": PROVIDER, "block": wire},
        )
    return ServerToolBlock(
        str(wire.get("id", "")),
        str(wire.get("name", kind)),
        "use",
        dict(inputs),
        provider_data={"provider": PROVIDER, "block": wire},
    )
