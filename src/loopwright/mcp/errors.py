"""Errors of MCP requests (light: no ``mcp`` or anyio import)."""

from __future__ import annotations

from loopwright.errors import LoopwrightError


class LoginRequired(LoopwrightError):
    """An HTTP server wants an OAuth login that this session cannot do by itself."""


class McpRequestError(LoopwrightError):
    """A request to an MCP server failed (the message says why and what to do)."""
