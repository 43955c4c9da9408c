"""OAuth 2.1 against a real MCP server with its own authorization server on 127.0.0.1:
discovery, dynamic registration, PKCE, refresh, stored tokens, login and logout from the
CLI, and no token anywhere but the token file."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp_support import OAUTH_SERVER, REPO, ScriptServer

from error_advice import assert_says_what_to_do
from loopwright.client import query
from loopwright.mcp.config import HttpServerConfig
from loopwright.mcp.oauth import FileTokenStorage, login, token_file
from loopwright.mcp.session_setup import new_manager
from loopwright.messages import ResultMessage, ToolResultBlock, UserMessage
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.options import Options
from loopwright.tools.base import SessionState, ToolContext


class Guarded:
    def __init__(self, server: ScriptServer, log: Path) -> None:
        self.server, self.log = server, log
        self.url = server.url("/mcp")
        self.config = HttpServerConfig(self.url)

    def events(self) -> list[str]:
        if not self.log.exists():
            return []
        return [json.loads(line)["event"] for line in self.log.read_text().splitlines()]


def start_guarded(tmp_path: Path, *args: str) -> Guarded:
    log = tmp_path / f"as-{len(list(tmp_path.glob('as-*')))}.log"
    return Guarded(ScriptServer(OAUTH_SERVER, "--log", str(log), *args), log)


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Guarded]:
    server = start_guarded(tmp_path)
    yield server
    server.server.stop()


async def browser(url: str) -> None:
    """The person's browser: follows the authorization URL to the local callback."""

    async def visit() -> None:
        async with httpx.AsyncClient(follow_redirects=True, timeout=20) as client:
            await client.get(url)

    asyncio.get_running_loop().create_task(visit())


async def connect(guarded: Guarded) -> tuple[str, str | None, str]:
    """(status, error, result of the protected tool) of a fresh session's connection."""
    async with new_manager(connect_timeout=20, call_timeout=20) as manager:
        [status] = await manager.start({"guarded": {"type": "http", "url": guarded.url}})
        tools = manager.tools()
        result = ""
        if tools:
            ctx = ToolContext(SessionState(Path.cwd()), "toolu_1")
            result = str((await tools[0].call({}, ctx)).content)
    return status.status, status.error, result


async def test_session_without_a_login_says_to_run_the_login_command(guarded: Guarded) -> None:
    status, error, _ = await connect(guarded)
    assert status == "needs-auth"
    assert_says_what_to_do(error, "run: loopwright mcp login guarded")


async def test_login_registers_uses_pkce_and_stores_tokens_owner_only(guarded: Guarded) -> None:
    await login("guarded", guarded.config, show_url=browser, timeout=30)
    path = token_file("guarded", guarded.url)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert path.parent == Path(os.environ["LOOPWRIGHT_HOME"]) / "mcp-auth"
    events = guarded.events()
    assert "register" in events and events[-2:] == ["authorize", "code_exchange"]
    status, _, result = await connect(guarded)
    assert status == "connected" and result == "the vault is open"


async def test_expired_token_is_refreshed_without_a_browser(guarded: Guarded) -> None:
    await login("guarded", guarded.config, show_url=browser, timeout=30)
    storage = FileTokenStorage(token_file("guarded", guarded.url))
    before = await storage.get_tokens()
    data = json.loads(storage.path.read_text())
    data["expires_at"] = time.time() - 60  # as if the hour had passed
    storage.path.write_text(json.dumps(data))
    status, _, result = await connect(guarded)
    after = await storage.get_tokens()
    assert status == "connected" and result == "the vault is open"
    assert guarded.events()[-1] == "refresh"
    assert before is not None and after is not None
    assert after.access_token != before.access_token
    assert storage.path.stat().st_mode & 0o777 == 0o600


async def test_refused_refresh_turns_into_needs_auth(tmp_path: Path) -> None:
    guarded = start_guarded(tmp_path, "--reject-refresh")
    try:
        await login("guarded", guarded.config, show_url=browser, timeout=30)
        storage = FileTokenStorage(token_file("guarded", guarded.url))
        data = json.loads(storage.path.read_text())
        data["expires_at"] = time.time() - 60
        storage.path.write_text(json.dumps(data))
        status, error, _ = await connect(guarded)
    finally:
        guarded.server.stop()
    assert status == "needs-auth"
    assert "loopwright mcp login guarded" in (error or "")


def run_cli(*args: str, home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "LOOPWRIGHT_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.Popen(
        [sys.executable, "-m", "loopwright.cli.main", "mcp", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_cli_login_prints_the_url_and_logout_forgets_the_tokens(
    guarded: Guarded, tmp_path: Path
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"guarded": {"type": "http", "url": guarded.url}}}))
    home = Path(os.environ["LOOPWRIGHT_HOME"])
    process = run_cli("login", "guarded", "--config", str(config), home=home)
    assert process.stdout is not None
    url = ""
    for line in process.stdout:  # headless: the URL is printed; a "browser" opens it
        if line.strip().startswith("http://127.0.0.1"):
            url = line.strip()
            break
    assert "code_challenge=" in url and "code_challenge_method=S256" in url
    httpx.get(url, follow_redirects=True, timeout=20)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "guarded: logged in" in out
    stored = json.loads(token_file("guarded", guarded.url).read_text())
    token = stored["tokens"]["access_token"]
    assert token not in out and token not in err

    listed = run_cli("list", "--config", str(config), home=home).communicate(timeout=60)[0]
    assert f"guarded  http  {guarded.url}  (logged in)" in listed
    gone = run_cli("logout", "guarded", "--config", str(config), home=home)
    assert "guarded: logged out" in gone.communicate(timeout=60)[0]
    assert not token_file("guarded", guarded.url).exists()


def test_cli_login_of_a_stdio_server_says_why_not(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"local": {"command": "true"}}}))
    process = run_cli("login", "local", "--config", str(config), home=tmp_path)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "only HTTP and SSE servers log in with OAuth" in err


async def test_no_token_in_the_transcript_or_any_other_file(
    guarded: Guarded, tmp_path: Path
) -> None:
    await login("guarded", guarded.config, show_url=browser, timeout=30)
    home = Path(os.environ["LOOPWRIGHT_HOME"])
    stored = json.loads(token_file("guarded", guarded.url).read_text())
    secrets = [stored["tokens"]["access_token"], stored["tokens"]["refresh_token"]]
    model = ScriptedModel([tool_call("mcp__guarded__secret"), text("done")])
    options = Options(
        model=model,
        cwd=tmp_path,
        setting_sources=[],
        permission_mode="bypassPermissions",
        mcp_servers={"guarded": {"type": "http", "url": guarded.url}},
    )
    messages = [m async for m in query("open the vault", options)]
    [result] = [
        b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]
    assert result.content == "the vault is open"
    assert isinstance(messages[-1], ResultMessage)
    written = [p for p in home.rglob("*") if p.is_file() and "mcp-auth" not in p.parts]
    assert written  # the transcript is there
    for path in written:
        content = path.read_bytes()
        assert not any(secret.encode() in content for secret in secrets), path
