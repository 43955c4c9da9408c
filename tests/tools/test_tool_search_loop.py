"""ToolSearch: when to defer tool definitions, searching, and loading found tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from loopwright.tools.base import SessionState, ToolContext, tool
from loopwright.tools.tool_search import (
    DeferredToolRegistry,
    estimate_tool_tokens,
    should_defer,
)


def make_tool(name: str, description: str) -> Any:
    @tool(name, description, {"type": "object", "properties": {"q": {"type": "string"}}})
    def handler(args: dict[str, Any]) -> str:
        return "ok"

    return handler


SLACK_SEND = make_tool("mcp__slack__send_message", "Send a message to a Slack channel")
SLACK_SEARCH = make_tool("mcp__slack__search_messages", "Search Slack messages by keyword")
GH_ISSUES = make_tool("mcp__github__list_issues", "List issues in a GitHub repository")
GH_PR = make_tool("mcp__github__create_pull_request", "Open a pull request on GitHub")
DEFERRED = [SLACK_SEND, SLACK_SEARCH, GH_ISSUES, GH_PR]


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(SessionState(tmp_path), "toolu_search")


def test_defers_only_when_definitions_reach_the_share_of_the_window() -> None:
    tokens = estimate_tool_tokens(DEFERRED)
    assert tokens > 0
    assert should_defer(DEFERRED, context_window=tokens * 5, share=0.1) is True
    assert should_defer(DEFERRED, context_window=tokens * 20, share=0.1) is False
    assert should_defer([], context_window=1000) is False


def test_keyword_search_ranks_name_matches_first() -> None:
    registry = DeferredToolRegistry(DEFERRED)
    found = registry.search("slack search")
    assert found[0] is SLACK_SEARCH
    assert SLACK_SEND in found
    assert GH_ISSUES not in found


def test_required_word_filters_and_the_other_words_rank() -> None:
    registry = DeferredToolRegistry(DEFERRED)
    assert registry.search("+github issues") == [GH_ISSUES, GH_PR]
    assert registry.search("+slack issues") == [SLACK_SEND, SLACK_SEARCH]


def test_select_loads_exact_names_only() -> None:
    registry = DeferredToolRegistry(DEFERRED)
    found = registry.search("select:mcp__github__create_pull_request,nope")
    assert found == [GH_PR]


def test_max_results_caps_the_matches() -> None:
    registry = DeferredToolRegistry(DEFERRED, max_results=1)
    assert len(registry.search("message")) == 1


async def test_search_tool_loads_matches_so_they_become_callable(tmp_path: Path) -> None:
    registry = DeferredToolRegistry(DEFERRED)
    assert registry.loaded() == []
    result = await registry.tool().call({"query": "github"}, ctx(tmp_path))
    assert result.is_error is False
    assert "mcp__github__list_issues: List issues" in str(result.content)
    assert {t.name for t in registry.loaded()} == {GH_ISSUES.name, GH_PR.name}


async def test_no_match_says_what_to_try(tmp_path: Path) -> None:
    registry = DeferredToolRegistry(DEFERRED)
    result = await registry.tool().call({"query": "kubernetes"}, ctx(tmp_path))
    assert "No deferred tool matches" in str(result.content)
    assert registry.loaded() == []


def test_listing_names_every_deferred_tool_and_reset_unloads() -> None:
    registry = DeferredToolRegistry(DEFERRED)
    listing = registry.deferred_listing()
    assert all(t.name in listing for t in DEFERRED)
    assert "ToolSearch" in listing
    registry.load(["mcp__slack__send_message", "unknown"])
    assert registry.loaded() == [SLACK_SEND]
    registry.reset()
    assert registry.loaded() == []
