"""The WebSearch tool: a pluggable search backend behind one small protocol."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.tools.context import SearchBackend as SearchBackend
from loopwright.tools.context import SearchResult as SearchResult

MAX_RESULTS_SHOWN = 10

NOT_CONFIGURED = (
    "web search is not configured: pass a search backend as "
    "Options(web_search_backend=...) — any object with "
    "`async search(query, allowed_domains, blocked_domains) -> list[SearchResult]` "
    "(see loopwright.tools.web_search.SearchBackend). Use WebFetch on a known URL instead."
)


WEB_SEARCH_DESCRIPTION = """\
Search the web and get result titles, URLs and snippets.

- Use it for information newer than your training or outside the project.
- allowed_domains keeps only results from those domains; blocked_domains drops results \
from them (give one or the other).
- Follow up with WebFetch on a result URL to read the page."""


def _domain_list(raw: object, name: str) -> list[str] | str | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(d, str) and d for d in raw):
        return f"{name} must be a list of domain names"
    return [str(d).lower() for d in raw]


def _in_domains(url: str, domains: list[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return any(host == d or host.endswith("." + d) for d in domains)


def _format(query: str, results: list[SearchResult]) -> str:
    if not results:
        return f'No results for "{query}"'
    lines = [f'Results for "{query}":']
    for number, result in enumerate(results[:MAX_RESULTS_SHOWN], start=1):
        lines.append(f"{number}. {result.title}\n   {result.url}")
        if result.snippet:
            lines.append(f"   {result.snippet}")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class WebSearchTool(ToolBase):
    name: str = "WebSearch"
    description: str = WEB_SEARCH_DESCRIPTION
    input_schema: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2, "description": "Search query."},
                "allowed_domains": {"type": "array", "items": {"type": "string"}},
                "blocked_domains": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["query"],
            "additionalProperties": False,
        }
    )
    read_only: bool = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = input.get("query")
        if not isinstance(query, str) or len(query.strip()) < 2:
            return ToolResult.error("query must be a string of at least 2 characters")
        allowed = _domain_list(input.get("allowed_domains"), "allowed_domains")
        blocked = _domain_list(input.get("blocked_domains"), "blocked_domains")
        for problem in (allowed, blocked):
            if isinstance(problem, str):
                return ToolResult.error(problem)
        if allowed and blocked:
            return ToolResult.error("give allowed_domains or blocked_domains, not both")
        assert not isinstance(allowed, str) and not isinstance(blocked, str)
        backend = ctx.services.web_search
        if backend is None or not inspect.iscoroutinefunction(getattr(backend, "search", None)):
            return ToolResult.error(NOT_CONFIGURED)
        try:
            results: list[SearchResult] = await backend.search(query, allowed, blocked)
        except Exception as exc:  # a backend's failure is the model's to know about
            return ToolResult.error(f"the search backend failed: {exc}")
        # Enforce the domain rules here too, so a backend that ignores them cannot leak.
        if allowed:
            results = [r for r in results if _in_domains(r.url, allowed)]
        if blocked:
            results = [r for r in results if not _in_domains(r.url, blocked)]
        return ToolResult(_format(query, results))
