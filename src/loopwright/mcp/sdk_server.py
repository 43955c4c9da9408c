"""In-process "MCP-style" servers: a name plus a list of tools, no protocol in between.

``create_sdk_mcp_server`` mirrors the Claude Agent SDK helper. Its tools are called
directly (they keep the real :class:`ToolContext`), but are named and reported exactly like
tools of an external server (``mcp__<server>__<tool>``, a status in ``init``), so
permission rules such as ``mcp__calc__*`` work the same for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from loopwright.tools.base import MinimalTool, Tool, adopt_tool


@dataclass(frozen=True, slots=True)
class SdkServerConfig:
    """An in-process server: pass it as a value of ``mcp_servers``."""

    name: str
    version: str = "1.0.0"
    tools: tuple[Tool, ...] = ()
    type: Literal["sdk"] = "sdk"


def create_sdk_mcp_server(
    name: str, version: str = "1.0.0", tools: Sequence[MinimalTool] | None = None
) -> SdkServerConfig:
    """Group tools (``@tool`` functions or any Tool) as an in-process server called ``name``."""
    tool_list = tuple(tools or ())
    seen: set[str] = set()
    for item in tool_list:
        if not isinstance(item, MinimalTool):
            raise TypeError(
                f"create_sdk_mcp_server({name!r}): {item!r} is not a tool; "
                "decorate the function with @tool first"
            )
        if item.name in seen:
            raise ValueError(
                f"create_sdk_mcp_server({name!r}): two tools are named {item.name!r}; rename one"
            )
        seen.add(item.name)
    adopted = tuple(adopt_tool(item) for item in tool_list)
    return SdkServerConfig(name=name, version=version, tools=adopted)
