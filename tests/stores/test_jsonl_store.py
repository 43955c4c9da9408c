"""The JSONL store: layout, O(1) appends, torn and corrupt lines."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright.messages import UserMessage
from loopwright.stores import (
    JSONLStore,
    SessionError,
    SessionRecorder,
    TranscriptCorruptError,
    project_key,
    restore,
    start_transcript,
)
from loopwright.stores.entries import Entry


def _state(sid: str, n: int) -> Entry:
    return Entry("state", sid, {"n": n})


async def _write(store: JSONLStore, sid: str, count: int) -> Path:
    for n in range(count):
        await store.append(sid, _state(sid, n))
    await store.sync()
    path = store.path_of(sid)
    assert path is not None
    return path


def test_project_key_replaces_every_non_alphanumeric_character() -> None:
    assert project_key("/home/me/my.proj_1") == "-home-me-my-proj-1"


def test_project_key_of_a_very_long_path_stays_short_and_distinct() -> None:
    a, b = "/x" * 150 + "/a", "/x" * 150 + "/b"
    assert len(project_key(a)) <= 213 and project_key(a) != project_key(b)


async def test_transcript_lives_under_home_projects_cwd_slug(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/elsewhere")
    opened = await start_transcript(store, "abc", cwd="/work/proj")
    await opened.recorder.message(UserMessage("hi"))
    expected = tmp_path / "projects" / "-work-proj" / "abc.jsonl"
    assert store.path_of("abc") == expected
    lines = expected.read_text().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["meta", "message"]


async def test_home_defaults_to_the_loopwright_home_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPWRIGHT_HOME", str(tmp_path / "lw"))
    store = JSONLStore(cwd="/p")
    await store.append("s1", _state("s1", 0))
    assert (tmp_path / "lw" / "projects" / "-p" / "s1.jsonl").exists()


async def test_appends_only_add_bytes_at_the_end(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    path = await _write(store, "s", 5)
    before = path.read_bytes()
    await store.append("s", _state("s", 5))
    after = path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 6


async def test_a_second_store_instance_appends_after_the_first(tmp_path: Path) -> None:
    first = JSONLStore(tmp_path, cwd="/p")
    await _write(first, "s", 3)
    await first.aclose()
    second = JSONLStore(tmp_path, cwd="/other")  # finds the session in its original project
    await second.append("s", _state("s", 3))
    assert [e.payload["n"] for e in await second.load("s")] == [0, 1, 2, 3]


async def test_many_sessions_beyond_the_open_file_cap_all_keep_their_lines(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p", max_open_files=3)
    for round_ in range(3):
        for sid in range(10):
            await store.append(f"s{sid}", _state(f"s{sid}", round_))
    await store.sync()
    for sid in range(10):
        assert [e.payload["n"] for e in await store.load(f"s{sid}")] == [0, 1, 2]


async def test_truncated_last_line_is_dropped_and_reported(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    path = await _write(store, "s", 4)
    with path.open("ab") as handle:
        handle.write(b'{"v":1,"kind":"state","uuid":"torn","payl')  # a crash mid-write
    entries = await JSONLStore(tmp_path, cwd="/p").load("s")
    assert [e.payload.get("n") for e in entries if e.kind == "state"] == [0, 1, 2, 3]
    assert "torn last line" in restore(entries).warnings[0]


async def test_appending_after_a_torn_line_cuts_it_off_first(tmp_path: Path) -> None:
    path = await _write(JSONLStore(tmp_path, cwd="/p"), "s", 2)
    with path.open("ab") as handle:
        handle.write(b'{"v":1,"kind":"sta')
    store = JSONLStore(tmp_path, cwd="/p")
    await store.append("s", _state("s", 2))
    entries = await store.load("s")
    assert [e.payload["n"] for e in entries] == [0, 1, 2]
    assert all(json.loads(line) for line in path.read_text().splitlines())


async def test_a_file_that_is_one_torn_line_loads_empty_and_recovers(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-p" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"v":1,"ki')
    store = JSONLStore(tmp_path, cwd="/p")
    assert [e.kind for e in await store.load("s")] == ["meta"]  # only the warning
    await store.append("s", _state("s", 0))
    assert [e.payload["n"] for e in await store.load("s")] == [0]


async def test_corrupt_middle_line_raises_an_error_naming_file_and_line(tmp_path: Path) -> None:
    path = await _write(JSONLStore(tmp_path, cwd="/p"), "s", 3)
    lines = path.read_bytes().split(b"\n")
    lines[1] = b"this is not json"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(TranscriptCorruptError) as caught:
        await JSONLStore(tmp_path, cwd="/p").load("s")
    assert caught.value.line_number == 2 and str(path) in str(caught.value)
    assert "corrupt_lines='skip'" in str(caught.value)


async def test_corrupt_middle_line_can_be_skipped_with_a_warning(tmp_path: Path) -> None:
    path = await _write(JSONLStore(tmp_path, cwd="/p"), "s", 3)
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"v": 99, "kind": "state"}'  # valid JSON, not an entry we can read
    path.write_bytes(b"\n".join(lines))
    entries = await JSONLStore(tmp_path, cwd="/p", corrupt_lines="skip").load("s")
    assert [e.payload["n"] for e in entries if e.kind == "state"] == [0, 2]
    assert "line 2: skipped" in restore(entries).warnings[0]


async def test_binary_garbage_in_the_middle_never_crashes_with_an_unclear_error(
    tmp_path: Path,
) -> None:
    path = await _write(JSONLStore(tmp_path, cwd="/p"), "s", 3)
    data = path.read_bytes()
    path.write_bytes(data[:10] + os.urandom(64).replace(b"\n", b"x") + data[10:])
    with pytest.raises(TranscriptCorruptError, match="line 1") as caught:
        await JSONLStore(tmp_path, cwd="/p").load("s")
    assert_says_what_to_do(caught.value, "fix or delete line 1", "corrupt_lines='skip'")


async def test_session_ids_that_could_escape_the_directory_are_refused(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    for bad in ("../x", "a/b", ".hidden", ""):
        with pytest.raises(SessionError, match="invalid session id") as caught:
            await store.append(bad, _state(bad, 0))
        assert_says_what_to_do(caught.value, "use letters, digits, '.', '_' and '-' only")


async def test_listing_skips_nothing_when_a_file_is_torn(tmp_path: Path) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    path = await _write(store, "s", 2)
    with path.open("ab") as handle:
        handle.write(b"{")
    infos = await JSONLStore(tmp_path, cwd="/p").list(project_key("/p"))
    assert [(i.session_id, i.entry_count) for i in infos] == [("s", 2)]


async def test_a_complete_bad_last_line_is_reported_now_not_after_the_next_append(
    tmp_path: Path,
) -> None:
    store = JSONLStore(tmp_path, cwd="/p")
    await SessionRecorder(store, "s").message(UserMessage("task"))
    path = store.path_of("s")
    assert path is not None
    with path.open("ab") as handle:
        handle.write(b'{"v":1,"kind":"message","oops"}\n')  # complete, so not a torn write
    with pytest.raises(TranscriptCorruptError) as caught:
        await store.load("s")
    assert caught.value.line_number == 2
    assert_says_what_to_do(caught.value, "fix or delete line 2", "corrupt_lines='skip'")
    skipping = JSONLStore(tmp_path, cwd="/p", corrupt_lines="skip")
    resumed = restore(await skipping.load("s"))
    await SessionRecorder(skipping, "s", parent_uuid=resumed.last_uuid).message(UserMessage("more"))
    await skipping.aclose()
    assert [m.content for m in restore(await skipping.load("s")).messages] == ["task", "more"]
