"""ToolSearch: keep many (MCP) tool definitions out of the context until they are needed.

When the deferrable tools' definitions would take more than a share of the context window
(:func:`should_defer`), the loop sends the model only their names (``deferred_listing``)
plus the ``ToolSearch`` tool. A search loads the best matches into the
:class:`DeferredToolRegistry`; each turn the loop adds ``registry.loaded()`` to the tools
it sends, so found tools become callable from the next response on.

Query syntax, as models already know it: ``select:Name1,Name2`` loads exact names;
otherwise keywords are matched against names and descriptions, and ``+word`` makes a word
required in the name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.tools.base import Tool, ToolBase, ToolContext, ToolResult

TOOL_SEARCH_NAME = "ToolSearch"
DEFAULT_MAX_RESULTS = 5
# A rough tokens-per-character ratio for JSON tool definitions: good enough to decide
# whether definitions are "large", which is all it is used for.
_CHARS_PER_TOKEN = 4
_WORD = re.compile(r"[a-z0-9]+")


def estimate_tool_tokens(tools: Iterable[Tool]) -> int:
    """Estimated tokens the definitions of these tools occupy in a request."""
    characters = 0
    for tool in tools:
        characters += len(tool.name) + len(tool.description)
        characters += len(json.dumps(tool.input_schema, separators=(",", ":")))
    return characters // _CHARS_PER_TOKEN


def should_defer(tools: Sequence[Tool], context_window: int, share: float = 0.1) -> bool:
    """Whether these tools' definitions reach ``share`` of the context window."""
    if not tools or context_window <= 0:
        return False
    return estimate_tool_tokens(tools) >= share * context_window


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(slots=True)
class DeferredToolRegistry:
    """The deferred tools of a session and which of them the model has loaded so far."""

    deferred: Sequence[Tool]
    max_results: int = DEFAULT_MAX_RESULTS
    _loaded: dict[str, Tool] = field(default_factory=dict[str, Tool])

    def find(self, name: str) -> Tool | None:
        """A deferred tool by exact name (loaded or not)."""
        return next((tool for tool in self.deferred if tool.name == name), None)

    def search(self, query: str, max_results: int | None = None) -> list[Tool]:
        """The best matches for a query, best first (nothing is loaded by searching)."""
        limit = max_results or self.max_results
        query = query.strip()
        if query.lower().startswith("select:"):
            names = [n.strip() for n in query[len("select:") :].split(",") if n.strip()]
            return [tool for name in names if (tool := self.find(name)) is not None]
        terms = query.lower().split()
        required = [word for term in terms if term.startswith("+") for word in _words(term)]
        optional = [word for term in terms if not term.startswith("+") for word in _words(term)]
        scored: list[tuple[int, int, Tool]] = []
        for index, tool in enumerate(self.deferred):
            name_words = set(_words(tool.name))
            if not all(word in name_words for word in required):
                continue
            score = _score(tool, name_words, required + optional)
            if score > 0:
                scored.append((-score, index, tool))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [tool for _, _, tool in scored[:limit]]

    def load(self, names: Iterable[str]) -> list[str]:
        """Make these deferred tools callable; returns the names that exist."""
        loaded: list[str] = []
        for name in names:
            tool = self.find(name)
            if tool is not None:
                self._loaded[name] = tool
                loaded.append(name)
        return loaded

    def loaded(self) -> list[Tool]:
        """The tools found so far, to send with every request from now on."""
        return list(self._loaded.values())

    def reset(self) -> None:
        """Forget loaded tools (after compaction the model searches again as needed)."""
        self._loaded.clear()

    def deferred_listing(self) -> str:
        """The system-prompt block naming the deferred tools ("" when there are none)."""
        if not self.deferred:
            return ""
        names = "\n".join(tool.name for tool in self.deferred)
        return (
            "# Deferred tools\n"
            f"These tools exist but their definitions are not loaded. Call {TOOL_SEARCH_NAME} "
            "to load the ones you need (by keywords, or select:Name for exact names); they "
            f"are callable after that.\n{names}"
        )

    def tool(self) -> ToolSearchTool:
        return ToolSearchTool(self)


def _score(tool: Tool, name_words: set[str], words: list[str]) -> int:
    description = tool.description.lower()
    name = tool.name.lower()
    score = 0
    for word in words:
        if word in name_words:
            score += 10
        elif word in name:
            score += 5
        if word in description:
            score += 2
    return score


@dataclass(frozen=True, slots=True, eq=False)  # identity hash: it holds the mutable registry
class ToolSearchTool(ToolBase):
    """The ``ToolSearch`` tool over a :class:`DeferredToolRegistry`."""

    registry: DeferredToolRegistry
    name: str = TOOL_SEARCH_NAME
    read_only: bool = True

    @property
    def description(self) -> str:
        return (
            "Find and load deferred tools. Query with keywords (matched against tool names "
            "and descriptions; +word requires the word in the name) or select:Name1,Name2 "
            "for exact names. Matching tools become callable from your next response."
        )

    @property
    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords, or select:Name1,Name2"},
                "max_results": {
                    "type": "integer",
                    "minimum": 1,
                    "description": f"At most this many tools (default {DEFAULT_MAX_RESULTS})",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        }

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = input.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolResult.error("'query' is required: keywords, or select:ToolName")
        limit = input.get("max_results")
        found = self.registry.search(query, limit if isinstance(limit, int) else None)
        if not found:
            return ToolResult(
                f"No deferred tool matches {query!r}. Try other keywords, or select:Name "
                "with a name from the deferred tools list."
            )
        self.registry.load(tool.name for tool in found)
        lines = "\n".join(f"- {tool.name}: {tool.description}" for tool in found)
        return ToolResult(f"Loaded {len(found)} tool(s); you can call them now:\n{lines}")
