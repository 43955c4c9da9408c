"""WebFetch against a local HTTP server on 127.0.0.1: HTML, JSON, redirects, size, errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright.models.scripted import ScriptedModel, text
from loopwright.tools.base import ToolContext, ToolResult, ToolServices
from loopwright.tools.web_fetch import MAX_BODY_BYTES, WebFetchTool

HTML = b"""<!doctype html><html><head><title>Doc</title><script>var hidden = 1;</script>
</head><body><h1>Heading</h1><p>Some <b>bold</b> text and a <a href="/next">link</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""
BIG_BODY_BYTES = 50 * 1024 * 1024


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    @property
    def port(self) -> int:
        return int(self.headers.get("Host", ":0").rsplit(":", 1)[1])

    def do_GET(self) -> None:
        routes = {
            "/html": lambda: self.send(200, "text/html; charset=utf-8", HTML),
            "/json": lambda: self.send(200, "application/json", b'{"answer": 42, "ok": true}'),
            "/plain": lambda: self.send(200, "text/plain", "grüße\n".encode()),
            "/png": lambda: self.send(200, "image/png", b"\x89PNG\r\n\x1a\n"),
            "/boom": lambda: self.send(500, "text/plain", b"internal error"),
            "/missing": lambda: self.send(404, "text/plain", b"nope"),
            "/loop-a": lambda: self.redirect("/loop-b"),
            "/loop-b": lambda: self.redirect("/loop-a"),
            "/hop": lambda: self.redirect("/html"),
            "/elsewhere": lambda: self.redirect(f"http://localhost:{self.port}/html"),
            "/big": self.big,
        }
        routes.get(self.path, lambda: self.send(404, "text/plain", b"unknown"))()

    def big(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(BIG_BODY_BYTES))
        self.end_headers()
        chunk = b"x" * (1024 * 1024)
        try:
            for _ in range(BIG_BODY_BYTES // len(chunk)):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading at its cap, as it should


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


async def fetch(ctx: ToolContext, **input: Any) -> ToolResult:
    return await WebFetchTool().call(input, ctx)


async def test_html_becomes_markdown(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, url=f"{server}/html")
    content = str(result.content)
    assert not result.is_error
    assert "# Heading" in content and "**bold**" in content and "[link](/next)" in content
    assert "* one" in content or "- one" in content
    assert "var hidden" not in content


async def test_json_and_plain_text_pass_through(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, url=f"{server}/json")
    body = str(result.content).split("\n\n", 1)[1]
    assert json.loads(body) == {"answer": 42, "ok": True}
    assert "grüße" in str((await fetch(ctx, url=f"{server}/plain")).content)


async def test_redirect_is_followed(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, url=f"{server}/hop")
    assert not result.is_error and "# Heading" in str(result.content)
    assert f"{server}/html" in str(result.content)


async def test_redirect_loop_is_an_error(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, url=f"{server}/loop-a")
    assert result.is_error and "redirect loop" in str(result.content)


async def test_large_body_is_cut_at_the_cap(ctx: ToolContext, server: str) -> None:
    result = await fetch(ctx, url=f"{server}/big")
    assert not result.is_error
    assert f"body cut at {MAX_BODY_BYTES} bytes" in str(result.content)
    assert len(str(result.content)) < 200_000


async def test_server_errors_and_non_text_are_errors(ctx: ToolContext, server: str) -> None:
    boom = await fetch(ctx, url=f"{server}/boom")
    assert boom.is_error and "HTTP 500" in str(boom.content)
    missing = await fetch(ctx, url=f"{server}/missing")
    assert missing.is_error and "HTTP 404" in str(missing.content)
    image = await fetch(ctx, url=f"{server}/png")
    assert image.is_error and "image/png" in str(image.content)


async def test_connection_refused_is_an_error(ctx: ToolContext) -> None:
    result = await fetch(ctx, url="http://127.0.0.1:9/")
    assert result.is_error and "could not fetch" in str(result.content)
    assert_says_what_to_do(result.content, "check the URL")


async def test_malformed_inputs_are_errors(ctx: ToolContext) -> None:
    for case, fix in (
        ({}, "url must be a non-empty string"),
        ({"url": ""}, "url must be a non-empty string"),
        ({"url": "ftp://x/y"}, "url must be an absolute http:// or https:// URL"),
        ({"url": "not a url"}, "url must be an absolute http:// or https:// URL"),
        ({"url": 3}, "url must be a non-empty string"),
    ):
        result = await fetch(ctx, **case)
        assert result.is_error, case
        assert_says_what_to_do(result.content, fix)


async def test_prompt_is_answered_by_the_session_model(ctx: ToolContext, server: str) -> None:
    model = ScriptedModel([text("The page has a heading and two list items.")])
    ctx.services = ToolServices(model=model)
    result = await fetch(ctx, url=f"{server}/html", prompt="What is on the page?")
    assert "two list items" in str(result.content)
    asked = model.requests[0]
    assert "What is on the page?" in str(asked.messages[0].content)
    model.assert_complete()


async def test_prompt_without_model_returns_content_with_note(
    ctx: ToolContext, server: str
) -> None:
    result = await fetch(ctx, url=f"{server}/html", prompt="anything")
    assert "no model is available" in str(result.content) and "# Heading" in str(result.content)


async def test_redirect_to_another_host_is_reported_not_followed(
    ctx: ToolContext, server: str
) -> None:
    result = await fetch(ctx, url=f"{server}/elsewhere")
    assert not result.is_error
    assert "different host" in str(result.content) and "localhost" in str(result.content)
    assert "# Heading" not in str(result.content)
