"""URLs lose their secrets wherever they are shown or stored; private files are 0600/0700."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from loopwright import Options, run
from loopwright.mcp import McpManager
from loopwright.messages import SystemMessage
from loopwright.redact import redact_text, redact_url
from loopwright.stores import open_store
from loopwright.testing import ScriptedModel, text

URLS = {
    "userinfo": ("https://user:hunter2@mcp.example/x", "https://***@mcp.example/x"),
    "token as user": ("https://ghp_abc123@github.com/r", "https://***@github.com/r"),
    "api_key": ("https://h/mcp?api_key=sk-1&mode=a", "https://h/mcp?api_key=***&mode=a"),
    "key": ("https://h/?key=AIza1", "https://h/?key=***"),
    "token": ("https://h/?token=t1", "https://h/?token=***"),
    "access_token": ("https://h/?x=1&access_token=t", "https://h/?x=1&access_token=***"),
    "password": ("https://h/?Password=p", "https://h/?Password=***"),
    "signature": (
        "https://b.s3/o?X-Amz-Signature=ab&X-Amz-Credential=c",
        "https://b.s3/o?X-Amz-Signature=***&X-Amz-Credential=***",
    ),
    "sig": ("https://b.blob/c?sv=1&sig=abc", "https://b.blob/c?sv=1&sig=***"),
    "fragment": ("https://h/cb#access_token=t&state=s", "https://h/cb#access_token=***&state=s"),
    "websocket": ("wss://u:p@h/ws?secret=s", "wss://***@h/ws?secret=***"),
}


@pytest.mark.parametrize(("url", "redacted"), list(URLS.values()), ids=list(URLS))
def test_redact_url_takes_out_userinfo_and_key_like_values(url: str, redacted: str) -> None:
    assert redact_url(url) == redacted


def test_plain_urls_and_text_are_unchanged() -> None:
    for plain in ("https://example.com/a?page=2&q=x", "no url here", "http://127.0.0.1:9/mcp"):
        assert redact_text(plain) == plain


def test_redact_text_finds_urls_inside_a_message() -> None:
    message = "could not connect to 'http://u:pw@127.0.0.1:9/mcp?api_key=sk-live' (refused)"
    assert redact_text(message) == (
        "could not connect to 'http://***@127.0.0.1:9/mcp?api_key=***' (refused)"
    )


SECRET_URL = "http://alice:hunter2@127.0.0.1:9/mcp?api_key=sk-live-123&token=tok-456"


def _leaks(text: str) -> list[str]:
    return [s for s in ("hunter2", "sk-live-123", "tok-456", "alice") if s in text]


async def test_an_unreachable_mcp_url_is_redacted_in_its_status() -> None:
    async with McpManager(connect_timeout=5) as manager:
        [status] = await manager.start({"gone": {"type": "http", "url": SECRET_URL}})
    assert status.status == "failed"
    assert "could not connect to http://***@127.0.0.1:9/mcp" in (status.error or "")
    assert _leaks(json.dumps(status.to_dict())) == []


async def test_an_unreachable_mcp_url_is_redacted_in_init_and_the_transcript(
    tmp_path: Path,
) -> None:
    options = Options(
        model=ScriptedModel([text("done")]),
        cwd=tmp_path,
        setting_sources=[],
        mcp_servers={"gone": {"type": "http", "url": SECRET_URL}},
        session_id="redacted-run",
    )
    from loopwright import query

    messages = [m async for m in query("go", options)]
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert "127.0.0.1:9" in json.dumps(init.data)
    assert _leaks(json.dumps([m.to_dict() for m in messages], default=str)) == []
    store = open_store(None, cwd=tmp_path)
    try:
        entries = await store.load("redacted-run")
    finally:
        await store.aclose()
    assert entries and _leaks(json.dumps([e.to_dict() for e in entries])) == []


def test_stream_json_carries_no_mcp_secret(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text("- text: done\n")
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"gone": {"type": "http", "url": SECRET_URL}}})
    )
    done = subprocess.run(
        [sys.executable, "-m", "loopwright.cli.main", "-p", "go", "--model", f"scripted:{script}",
         "--output-format", "stream-json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "127.0.0.1:9" in done.stdout
    assert _leaks(done.stdout + done.stderr) == []


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_jsonl_transcript_and_its_lock_are_owner_only_in_owner_only_dirs(
    tmp_path: Path,
) -> None:
    home = tmp_path / "fresh-home"
    await run(
        "go",
        Options(
            model=ScriptedModel([text("hi")]),
            cwd=tmp_path,
            setting_sources=[],
            session_store=f"jsonl:{home}",
            session_id="private-one",
        ),
    )
    [transcript] = home.rglob("private-one.jsonl")
    assert _mode(transcript) == 0o600
    for directory in (home, home / "projects", transcript.parent, home / "locks"):
        assert _mode(directory) == 0o700, directory
    for lock in (home / "locks").iterdir():
        assert _mode(lock) == 0o600


async def test_the_sqlite_store_and_its_wal_and_shm_are_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "new-dir" / "sessions.db"
    old_umask = os.umask(0o022)
    try:
        await run(
            "go",
            Options(
                model=ScriptedModel([text("hi")]),
                cwd=tmp_path,
                setting_sources=[],
                session_store=f"sqlite:{db}",
            ),
        )
        store = open_store(f"sqlite:{db}")
        await store.list()  # holds the database open: -wal and -shm exist meanwhile
        files = [db, db.with_name("sessions.db-wal"), db.with_name("sessions.db-shm")]
        assert all(f.exists() for f in files)
        assert [_mode(f) for f in files] == [0o600, 0o600, 0o600]
        await store.aclose()
    finally:
        os.umask(old_umask)
    assert _mode(db.parent) == 0o700


def test_the_repl_history_is_created_owner_only(tmp_path: Path) -> None:
    from loopwright.cli.line_input import LineReader

    history = tmp_path / "home" / "history"
    LineReader([("help", "h")], history=history)
    assert _mode(history) == 0o600 and _mode(history.parent) == 0o700
