"""The public helpers in ``loopwright.stores``."""

from __future__ import annotations

from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.errors import ConfigurationError
from loopwright.messages import AssistantMessage, TextBlock, UserMessage
from loopwright.stores import (
    JSONLStore,
    SessionNotFoundError,
    SQLiteStore,
    delete_session,
    fork_session,
    get_session_messages,
    list_sessions,
    open_store,
    rename_session,
    start_transcript,
    tag_session,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOOPWRIGHT_HOME", str(tmp_path))
    return tmp_path


async def _make(sid: str, cwd: str, prompt: str) -> None:
    opened = await start_transcript(JSONLStore(cwd=cwd), sid, cwd)
    await opened.recorder.message(UserMessage(prompt))
    await opened.recorder.message(AssistantMessage([TextBlock(f"answer to {prompt}")]))
    opened.release()


async def test_list_rename_tag_and_delete_with_the_default_store(home: Path) -> None:
    await _make("a", "/proj", "fix the build")
    await _make("b", "/proj", "write docs")
    await _make("c", "/other", "unrelated")
    listed = await list_sessions("/proj")
    assert [i.session_id for i in listed] == ["b", "a"]
    assert listed[1].summary == "fix the build"
    await rename_session("a", "Build fix", cwd="/proj")
    await tag_session("a", "urgent", cwd="/proj")
    info = next(i for i in await list_sessions("/proj") if i.session_id == "a")
    assert (info.title, info.tag, info.summary) == ("Build fix", "urgent", "Build fix")
    assert len(await list_sessions(all_projects=True)) == 3
    assert await delete_session("a", cwd="/proj") is True
    assert [i.session_id for i in await list_sessions("/proj")] == ["b"]


async def test_get_session_messages_pages_through_the_conversation(home: Path) -> None:
    await _make("a", "/proj", "hello")
    messages = await get_session_messages("a", cwd="/proj")
    assert [type(m).__name__ for m in messages] == ["UserMessage", "AssistantMessage"]
    assert await get_session_messages("a", cwd="/proj", offset=1, limit=5) == messages[1:]


async def test_helpers_name_a_missing_session(home: Path) -> None:
    with pytest.raises(SessionNotFoundError) as reading:
        await get_session_messages("nope", cwd="/proj")
    with pytest.raises(SessionNotFoundError) as renaming:
        await rename_session("nope", "title", cwd="/proj")
    for caught in (reading, renaming):
        assert "'nope'" in str(caught.value)
        assert_says_what_to_do(caught.value, "list sessions with `loopwright sessions list`")


async def test_fork_session_helper_uses_the_default_store(home: Path) -> None:
    await _make("a", "/proj", "hello")
    new_id = await fork_session("a", cwd="/proj")
    assert await get_session_messages(new_id, cwd="/proj") == await get_session_messages(
        "a", cwd="/proj"
    )


def test_open_store_understands_option_strings(tmp_path: Path) -> None:
    assert isinstance(open_store(None, cwd="/p"), JSONLStore)
    jsonl = open_store(f"jsonl:{tmp_path}", cwd="/p")
    assert isinstance(jsonl, JSONLStore) and jsonl.root == tmp_path
    sqlite = open_store(f"sqlite://{tmp_path / 's.db'}")
    assert isinstance(sqlite, SQLiteStore) and sqlite.path == tmp_path / "s.db"
    from loopwright.stores.postgres import PostgresStore

    assert isinstance(open_store("postgresql://u@127.0.0.1/db"), PostgresStore)
    with pytest.raises(ConfigurationError, match="is not a store"):
        open_store("redis://x")
