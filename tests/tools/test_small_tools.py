"""WebSearch, TodoWrite, AskUserQuestion, PDFs in Read, and the built-in registry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from error_advice import assert_says_what_to_do
from loopwright.errors import ConfigurationError
from loopwright.tools.ask_user import AskUserQuestionTool
from loopwright.tools.base import Tool, ToolContext, ToolServices
from loopwright.tools.builtins import BUILTIN_TOOL_NAMES, builtin_tool
from loopwright.tools.read import ReadTool
from loopwright.tools.todo import TodoWriteTool
from loopwright.tools.web_search import SearchResult, WebSearchTool


class FakeSearch:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Sequence[str] | None, Sequence[str] | None]] = []

    async def search(
        self,
        query: str,
        allowed_domains: Sequence[str] | None,
        blocked_domains: Sequence[str] | None,
    ) -> list[SearchResult]:
        self.calls.append((query, allowed_domains, blocked_domains))
        return [
            SearchResult("Docs", "https://docs.example.com/a", "the docs"),
            SearchResult("Blog", "https://blog.other.org/b", "a post"),
        ]


async def test_web_search_without_backend_says_how_to_configure(ctx: ToolContext) -> None:
    result = await WebSearchTool().call({"query": "python asyncio"}, ctx)
    assert result.is_error and "web_search_backend" in str(result.content)


async def test_web_search_uses_the_backend_and_enforces_domains(ctx: ToolContext) -> None:
    backend = FakeSearch()
    ctx.services = ToolServices(web_search=backend)
    result = await WebSearchTool().call(
        {"query": "asyncio", "allowed_domains": ["example.com"]}, ctx
    )
    assert "https://docs.example.com/a" in str(result.content)
    assert "blog.other.org" not in str(result.content)
    assert backend.calls == [("asyncio", ["example.com"], None)]
    blocked = await WebSearchTool().call(
        {"query": "asyncio", "blocked_domains": ["example.com"]}, ctx
    )
    assert "docs.example.com" not in str(blocked.content) and "blog.other.org" in str(
        blocked.content
    )


async def test_web_search_malformed_input(ctx: ToolContext) -> None:
    ctx.services = ToolServices(web_search=FakeSearch())
    for case, fix in (
        ({}, "query must be a string of at least 2 characters"),
        ({"query": "x"}, "query must be a string of at least 2 characters"),
        ({"query": "ok query", "allowed_domains": "example.com"}, "must be a list of domain names"),
        (
            {"query": "ok query", "allowed_domains": ["a.com"], "blocked_domains": ["b.com"]},
            "give allowed_domains or blocked_domains, not both",
        ),
    ):
        result = await WebSearchTool().call(dict(case), ctx)
        assert result.is_error, case
        assert_says_what_to_do(result.content, fix)


async def test_todo_write_stores_the_list(ctx: ToolContext) -> None:
    todos = [
        {"content": "Run tests", "status": "completed", "activeForm": "Running tests"},
        {"content": "Fix bug", "status": "in_progress"},
        {"content": "Ship", "status": "pending"},
    ]
    result = await TodoWriteTool().call({"todos": todos}, ctx)
    assert not result.is_error
    assert ctx.state.todos == todos
    assert "1/3 completed" in str(result.content)


async def test_todo_write_rejects_bad_lists(ctx: ToolContext) -> None:
    two_active = [
        {"content": "a", "status": "in_progress"},
        {"content": "b", "status": "in_progress"},
    ]
    for todos, fix in (
        (two_active, "at most one may be in_progress"),
        ([{"content": "a", "status": "done"}], "must be one of pending, in_progress, completed"),
        ([{"status": "pending"}], "todos[0].content must be a non-empty string"),
        ("x", "todos must be a list of {content, status, activeForm?} objects"),
    ):
        result = await TodoWriteTool().call({"todos": todos}, ctx)
        assert result.is_error, todos
        assert_says_what_to_do(result.content, fix)
    assert ctx.state.todos == []


QUESTION: dict[str, Any] = {
    "question": "Which database?",
    "header": "Database",
    "options": [
        {"label": "SQLite", "description": "single file"},
        {"label": "PostgreSQL", "description": "server"},
    ],
    "multiSelect": False,
}


async def test_ask_user_without_callback_is_denied(ctx: ToolContext) -> None:
    result = await AskUserQuestionTool().call({"questions": [QUESTION]}, ctx)
    assert result.is_error and str(result.content).startswith("denied: no ask_user callback")
    assert_says_what_to_do(
        result.content, "Proceed on your own best judgement", "ask_user=callback"
    )


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_ask_user_routes_to_the_callback(ctx: ToolContext, asynchronous: bool) -> None:
    seen: list[list[dict[str, Any]]] = []

    def answer(questions: list[dict[str, Any]]) -> dict[str, str]:
        seen.append(questions)
        return {"Which database?": "SQLite"}

    async def answer_async(questions: list[dict[str, Any]]) -> dict[str, str]:
        return answer(questions)

    ctx.services = ToolServices(ask_user=answer_async if asynchronous else answer)
    result = await AskUserQuestionTool().call({"questions": [QUESTION]}, ctx)
    assert not result.is_error and "SQLite" in str(result.content)
    assert seen[0][0]["question"] == "Which database?"


async def test_ask_user_malformed_questions(ctx: ToolContext) -> None:
    def no_answers(questions: list[dict[str, Any]]) -> dict[str, str]:
        return {}

    ctx.services = ToolServices(ask_user=no_answers)
    one_option = {**QUESTION, "options": [{"label": "only", "description": "one"}]}
    for questions, fix in (
        ([], "a list of 1 to 4 questions"),
        ([QUESTION] * 5, "a list of 1 to 4 questions"),
        ([one_option], "options must be a list of 2 to 4 options"),
        (["text"], "questions[0] must be an object"),
        (None, "a list of 1 to 4 questions"),
    ):
        result = await AskUserQuestionTool().call({"questions": questions}, ctx)
        assert result.is_error, questions
        assert_says_what_to_do(result.content, fix)


def minimal_pdf(text: str) -> bytes:
    """A one-page PDF whose page draws ``text`` (hand-built: no PDF writer needed)."""
    stream = f"BT /F1 24 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


async def test_pdf_pages_are_read_as_text(ctx: ToolContext, tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    target = tmp_path / "doc.pdf"
    target.write_bytes(minimal_pdf("Hello PDF"))
    result = await ReadTool().call({"file_path": str(target)}, ctx)
    assert not result.is_error, result.content
    assert "Hello PDF" in str(result.content) and "1 pages" in str(result.content)
    bad = await ReadTool().call({"file_path": str(target), "pages": "5-2"}, ctx)
    assert bad.is_error
    assert_says_what_to_do(bad.content, 'lower first, e.g. "2-5"')


def test_every_builtin_is_a_fresh_tool() -> None:
    assert BUILTIN_TOOL_NAMES[:3] == ("Read", "Write", "Edit")
    for name in BUILTIN_TOOL_NAMES:
        tool = builtin_tool(name)
        assert isinstance(tool, Tool) and tool.name == name
        assert tool.input_schema["type"] == "object" and tool.description
        Draft202012Validator.check_schema(tool.input_schema)
        assert builtin_tool(name) is not tool


def test_unknown_builtin_names_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError, match="valid names: Read, Write"):
        builtin_tool("Raed")
