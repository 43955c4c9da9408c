"""Checks any ``SessionStore`` must pass. Run them on yours::

    from loopwright.testing.store_conformance import run_store_conformance

    async def test_my_store():
        await run_store_conformance(lambda: MyStore(fresh_database()))

``make_store`` is called once per check and must return a store with empty storage (a
new temp dir, a unique table, …). To see each check as its own test, parametrize over
:data:`STORE_CHECKS` and call ``await check(store)``. No pytest import: these are plain
async functions raising ``AssertionError``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from loopwright.messages import (
    AssistantMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from loopwright.stores.base import (
    MinimalStore,
    NoWriterLock,
    SessionBusyError,
    SessionStore,
    adopt_store,
    lock_for_writing,
)
from loopwright.stores.entries import Entry, meta_entry
from loopwright.stores.recorder import SessionRecorder, fork_session
from loopwright.stores.transcript import restore

StoreFactory = Callable[[], MinimalStore | Awaitable[MinimalStore]]
Check = Callable[[SessionStore], Awaitable[None]]


def _entry(session_id: str, n: int, **extra: Any) -> Entry:
    return Entry("state", session_id, {"n": n, **extra}, timestamp=1_700_000_000.0 + n)


def _ensure(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


async def check_append_then_load_in_order(store: SessionStore) -> None:
    entries = [_entry("s-order", n) for n in range(50)]
    for entry in entries:
        await store.append("s-order", entry)
    loaded = await store.load("s-order")
    _ensure(loaded == entries, "load() must return the appended entries, equal and in order")


async def check_unknown_session_loads_empty(store: SessionStore) -> None:
    _ensure(await store.load("never-written") == [], "load() of an unknown session must be []")
    _ensure(await store.delete("never-written") is False, "delete() of nothing must be False")


async def check_sessions_are_isolated(store: SessionStore) -> None:
    for n in range(10):
        await store.append("s-a", _entry("s-a", n))
        await store.append("s-b", _entry("s-b", 100 + n))
    a, b = await store.load("s-a"), await store.load("s-b")
    _ensure([e.payload["n"] for e in a] == list(range(10)), "s-a holds only its own entries")
    _ensure([e.payload["n"] for e in b] == list(range(100, 110)), "s-b holds only its own")


async def check_extend_appends_in_order(store: SessionStore) -> None:
    await store.append("s-ext", _entry("s-ext", 0))
    await store.extend("s-ext", [_entry("s-ext", n) for n in range(1, 20)])
    await store.extend("s-ext", [])
    loaded = await store.load("s-ext")
    _ensure([e.payload["n"] for e in loaded] == list(range(20)), "extend() keeps order")


async def check_list_reports_sessions(store: SessionStore) -> None:
    cwd = "/tmp/conformance/project-one"
    for index, sid in enumerate(("s-old", "s-new")):
        recorder = SessionRecorder(store, sid)
        await store.append(sid, meta_entry(sid, cwd=cwd))
        prompt = UserMessage(f"task {sid}")
        await recorder.message(prompt)
        await store.append(sid, _entry(sid, 10 + index))
    await store.append("elsewhere", meta_entry("elsewhere", cwd="/tmp/conformance/other"))
    await store.append("elsewhere", _entry("elsewhere", 99))
    every = await store.list()
    _ensure({i.session_id for i in every} >= {"s-old", "s-new", "elsewhere"}, "list() sees all")
    project = next(i.project for i in every if i.session_id == "s-old")
    mine = await store.list(project)
    _ensure([i.session_id for i in mine] == ["s-new", "s-old"], "list(project): newest first")
    info = mine[1]
    _ensure(info.cwd == cwd and info.first_prompt == "task s-old", "listing shows cwd and prompt")
    _ensure(info.entry_count == 3, f"entry_count should be 3, got {info.entry_count}")


async def check_meta_title_and_tag(store: SessionStore) -> None:
    await store.append("s-meta", _entry("s-meta", 1))
    await store.append("s-meta", meta_entry("s-meta", title="first title"))
    await store.append("s-meta", meta_entry("s-meta", title="renamed", tag="keep"))
    info = next(i for i in await store.list() if i.session_id == "s-meta")
    _ensure(info.title == "renamed" and info.tag == "keep", "later meta entries win")


async def check_unicode_round_trip(store: SessionStore) -> None:
    text = 'héllo ✓ 日本語 🚀 \u0000 nul, tab\t, newline\n, quote", backslash\\ \u2028'
    entry = Entry("state", "s-uni", {"text": text, "ключ": ["ü", {"emoji": "🧪"}]})
    await store.append("s-uni", entry)
    _ensure(await store.load("s-uni") == [entry], "unicode and control characters round-trip")


async def check_large_entry(store: SessionStore) -> None:
    big = "x" * 3_000_000 + "end"
    entry = Entry("state", "s-big", {"blob": big, "lines": ["line\n"] * 1000})
    await store.append("s-big", entry)
    await store.append("s-big", _entry("s-big", 2))
    loaded = await store.load("s-big")
    _ensure(len(loaded) == 2 and loaded[0] == entry, "a 3 MB entry round-trips intact")


async def check_concurrent_appends(store: SessionStore) -> None:
    async def writer(task: int) -> None:
        sid = f"s-conc-{task % 4}"
        for n in range(25):
            await store.append(sid, _entry(sid, n, task=task))
            if n % 5 == 0:
                await asyncio.sleep(0)

    await asyncio.gather(*(writer(task) for task in range(16)))
    for session in range(4):
        loaded = await store.load(f"s-conc-{session}")
        _ensure(len(loaded) == 4 * 25, f"s-conc-{session}: all 100 concurrent appends kept")
        for task in range(session, 16, 4):
            ns = [e.payload["n"] for e in loaded if e.payload["task"] == task]
            _ensure(ns == list(range(25)), f"task {task}: its appends keep their order")


async def check_delete_removes_only_that_session(store: SessionStore) -> None:
    await store.append("s-del", _entry("s-del", 1))
    await store.append("s-keep", _entry("s-keep", 1))
    _ensure(await store.delete("s-del") is True, "delete() of a session returns True")
    _ensure(await store.load("s-del") == [], "a deleted session loads as []")
    _ensure(len(await store.load("s-keep")) == 1, "delete() leaves other sessions alone")
    _ensure(all(i.session_id != "s-del" for i in await store.list()), "deleted: not listed")
    await store.append("s-del", _entry("s-del", 2))
    _ensure(len(await store.load("s-del")) == 1, "a deleted id can be used again")


async def _conversation(store: SessionStore, sid: str) -> list[str]:
    recorder = SessionRecorder(store, sid)
    await store.append(sid, meta_entry(sid, cwd="/tmp/conformance/fork"))
    uuids: list[str] = []
    for turn in range(3):
        call = ToolUseBlock(f"call-{turn}", "Read", {"file_path": f"/f{turn}"})
        assistant = AssistantMessage([TextBlock(f"turn {turn}"), call], model="scripted")
        for message in (UserMessage(f"prompt {turn}"), assistant):
            await recorder.message(message)
            uuids.append(message.uuid)
        result = UserMessage([ToolResultBlock(call.id, f"contents {turn}")])
        await recorder.message(result)
        uuids.append(result.uuid)
    await store.sync()
    return uuids


async def check_fork_leaves_original_untouched(store: SessionStore) -> None:
    uuids = await _conversation(store, "s-orig")
    before = await store.load("s-orig")
    fork_id = await fork_session(store, "s-orig")
    branch_id = await fork_session(store, "s-orig", up_to=uuids[4])
    _ensure(await store.load("s-orig") == before, "fork() must not change the original")
    forked = restore(await store.load(fork_id))
    original = restore(before)
    _ensure(forked.messages == original.messages, "a fork restores the same conversation")
    _ensure(fork_id != "s-orig" and forked.session_id == fork_id, "a fork has its own id")
    branch = restore(await store.load(branch_id))
    _ensure([m.uuid for m in branch.messages][:5] == uuids[:5], "fork up_to keeps the prefix")
    _ensure(len(branch.messages) == 6, "fork up_to a tool call closes it as interrupted")


async def check_restore_round_trip(store: SessionStore) -> None:
    await _conversation(store, "s-rt")
    restored = restore(await store.load("s-rt"))
    _ensure(len(restored.messages) == 9 and not restored.repairs, "restore gives 9 messages")
    _ensure(restored.last_uuid == restored.messages[-1].uuid, "last_uuid is the leaf")


async def check_a_repeated_uuid_is_kept(store: SessionStore) -> None:
    # A message object sent twice is recorded twice (same uuid, another parent): a store
    # that keys entries by uuid would lose everything said in between on resume.
    recorder = SessionRecorder(store, "s-twice")
    ping = UserMessage("ping")
    between = [AssistantMessage([TextBlock("a")]), UserMessage("middle")]
    for message in (ping, *between):
        await recorder.message(message)
    next_run = SessionRecorder(store, "s-twice", parent_uuid=recorder.last_uuid)
    await next_run.message(ping)
    loaded = await store.load("s-twice")
    _ensure(len(loaded) == 4, "append() must keep an entry whose uuid was appended before")
    texts = [m.content for m in restore(loaded).messages if isinstance(m, UserMessage)]
    _ensure(texts == ["ping", "middle", "ping"], "a repeated message restores in its place")


async def check_one_writer_per_session(store: SessionStore) -> None:
    """For stores that lock (``lock_session``): a second writer is refused, not interleaved,
    with an error that says what to do; the lock is free again once released.

    Stores that do not lock (their ``lock_session`` gives a NoWriterLock, StoreBase's
    default) pass trivially: locking is optional in the protocol.
    """
    first = await lock_for_writing(store, "locked")
    if isinstance(first, NoWriterLock):
        return
    try:
        await store.append("locked", _entry("locked", 1))
        try:
            (await lock_for_writing(store, "locked")).release()
        except SessionBusyError as exc:
            _ensure("fork_session=True" in str(exc), f"the refusal must say what to do: {exc}")
            _ensure("Wait for that run" in str(exc), f"the refusal must say to wait: {exc}")
        else:
            raise AssertionError("a second writer of a locked session was not refused")
        (await lock_for_writing(store, "another")).release()  # other sessions are not affected
    finally:
        first.release()
    (await lock_for_writing(store, "locked")).release()  # released: the session is free again
    loaded = [e.payload.get("n") for e in await store.load("locked")]
    _ensure(loaded == [1], f"entries under the lock were not kept: {loaded}")


STORE_CHECKS: dict[str, Check] = {
    "append_then_load_in_order": check_append_then_load_in_order,
    "unknown_session_loads_empty": check_unknown_session_loads_empty,
    "sessions_are_isolated": check_sessions_are_isolated,
    "extend_appends_in_order": check_extend_appends_in_order,
    "list_reports_sessions": check_list_reports_sessions,
    "meta_title_and_tag": check_meta_title_and_tag,
    "unicode_round_trip": check_unicode_round_trip,
    "large_entry": check_large_entry,
    "concurrent_appends": check_concurrent_appends,
    "delete_removes_only_that_session": check_delete_removes_only_that_session,
    "fork_leaves_original_untouched": check_fork_leaves_original_untouched,
    "restore_round_trip": check_restore_round_trip,
    "a_repeated_uuid_is_kept": check_a_repeated_uuid_is_kept,
    "one_writer_per_session": check_one_writer_per_session,
}


async def make(factory: StoreFactory) -> SessionStore:
    produced = factory()
    made: MinimalStore = await produced if inspect.isawaitable(produced) else produced
    return adopt_store(made)  # a store without the optional members gets their defaults


async def run_store_conformance(make_store: StoreFactory) -> None:
    """Run every check, each on a fresh store; raises AssertionError naming the failed check."""
    for name, check in STORE_CHECKS.items():
        store = await make(make_store)
        try:
            await check(store)
        except AssertionError as exc:
            raise AssertionError(f"store conformance check {name!r} failed: {exc}") from exc
        finally:
            await store.aclose()
