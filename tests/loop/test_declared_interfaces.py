"""Declared interfaces: a user's object with only the required members works through the
real loop (adopted once, defaults for the rest), and each wrapper base passes on every
member its Protocol declares — a member added without forwarding fails here."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from loopwright import Options, run
from loopwright.messages import TextBlock, Usage
from loopwright.models.base import (
    MinimalModel,
    Model,
    ModelBase,
    ModelEvent,
    ModelRequest,
    ModelResponse,
    ModelWrapper,
)
from loopwright.models.settings import ModelSettings, ServerTool
from loopwright.stores.base import (
    EntryList,
    ForeignStore,
    InfoList,
    MinimalStore,
    NoWriterLock,
    SessionStore,
    WriterLock,
    adopt_store,
    summarise_entries,
)
from loopwright.stores.entries import Entry
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import (
    MinimalTool,
    Tool,
    ToolBase,
    ToolContext,
    ToolResult,
    ToolWrapper,
)
from support import base_options

REQUEST = ModelRequest(model="m", system="", messages=[])


def members(protocol: type, minimal: type) -> list[str]:
    """The public members a Protocol declares, its minimal base's included."""
    names = {n for cls in (protocol, minimal) for n in vars(cls) if not n.startswith("_")}
    return sorted(names)


# --------------------------------------------------------------------------- users' objects


class BareModel:
    """A user's model with only what a model must have: a name and stream."""

    name = "bare"

    def __init__(self, answer: str) -> None:
        self.answer = answer

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelResponse([TextBlock(self.answer)], Usage(), "end_turn", self.name)


class BareTool:
    """A user's tool with no timeout_seconds or idempotent."""

    name = "shout"
    description = "Say it louder."
    input_schema: dict[str, Any] = {"type": "object", "properties": {"word": {"type": "string"}}}
    read_only = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(str(input["word"]).upper())


class BareStore:
    """A user's store without lock_session, path_of or location."""

    def __init__(self) -> None:
        self.sessions: dict[str, list[Entry]] = {}

    async def append(self, session_id: str, entry: Entry) -> None:
        self.sessions.setdefault(session_id, []).append(entry)

    async def extend(self, session_id: str, entries: Sequence[Entry]) -> None:
        self.sessions.setdefault(session_id, []).extend(entries)

    async def load(self, session_id: str) -> EntryList:
        return list(self.sessions.get(session_id, []))

    async def list(self, project: str | None = None) -> InfoList:
        infos = [summarise_entries(sid, "p", entries) for sid, entries in self.sessions.items()]
        return infos

    async def delete(self, session_id: str) -> bool:
        return self.sessions.pop(session_id, None) is not None

    async def sync(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


async def test_a_model_with_only_name_and_stream_runs_the_loop() -> None:
    result = await run("hi", Options(model=BareModel("hello back"), setting_sources=[], tools=[]))
    assert result.result == "hello back" and not result.is_error


async def test_a_tool_without_optional_members_is_called_by_the_loop() -> None:
    model = ScriptedModel([tool_call("shout", word="hey"), text("done")])
    options = base_options(model, tools=[BareTool()])
    result = await run("go", options)
    assert result.result == "done"
    sent = model.requests[1].messages[-1].content
    assert not isinstance(sent, str) and "HEY" in str(sent[0])


async def test_a_store_without_lock_session_records_and_resumes(tmp_path: Path) -> None:
    store = BareStore()
    first = await run(
        "remember 7",
        Options(
            model=ScriptedModel([text("ok")]),
            setting_sources=[],
            tools=[],
            cwd=tmp_path,
            session_store=store,
        ),
    )
    model = ScriptedModel([text("it was 7")])
    second = await run(
        "which?",
        Options(
            model=model,
            setting_sources=[],
            tools=[],
            cwd=tmp_path,
            session_store=store,
            resume=first.session_id,
        ),
    )
    assert second.session_id == first.session_id
    assert model.requests[0].messages[0].content == "remember 7"


def test_a_store_without_lock_session_gets_the_defaults() -> None:
    adopted = adopt_store(BareStore())
    assert isinstance(adopted.lock_session("s"), NoWriterLock)
    assert adopted.path_of("s") is None and adopted.location is None


# --------------------------------------------------------------------------- wrappers


class Marked(ModelBase):
    """A model whose every optional member differs from the default, recording calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    created_by_loopwright = True

    @property
    def name(self) -> str:
        return "marked"

    @property
    def context_window(self) -> int | None:
        return 123_456

    @property
    def supports_reasoning(self) -> bool:
        return False

    def check_settings(
        self, settings: ModelSettings | None, server_tools: Sequence[ServerTool] = ()
    ) -> None:
        self.calls.append("check_settings")

    async def count_tokens(self, request: ModelRequest) -> int:
        return 42

    async def aclose(self) -> None:
        self.calls.append("aclose")

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        yield ModelResponse([TextBlock("marked")], Usage(), "end_turn", "marked")


class PassThrough(ModelWrapper):
    def __init__(self, inner: MinimalModel) -> None:
        self.inner = inner

    @property
    def wrapped(self) -> MinimalModel:
        return self.inner


MODEL_ARGUMENTS: dict[str, tuple[Any, ...]] = {
    "check_settings": (None, ()),
    "count_tokens": (REQUEST,),
    "aclose": (),
    "stream": (REQUEST,),
}


async def _observe(obj: Any, name: str, arguments: dict[str, tuple[Any, ...]]) -> Any:
    member = getattr(obj, name)
    if not callable(member):
        return member
    produced = member(*arguments[name])
    if inspect.isawaitable(produced):
        return await produced
    if inspect.isasyncgen(produced):
        return [event async for event in produced]
    return produced


async def test_the_model_wrapper_passes_on_every_declared_member() -> None:
    inner = Marked()
    wrapper = PassThrough(inner)
    for name in members(Model, MinimalModel):
        seen = await _observe(wrapper, name, MODEL_ARGUMENTS)
        expected = await _observe(inner, name, MODEL_ARGUMENTS)
        assert seen == expected, f"ModelWrapper does not pass on {name}"
    assert inner.calls.count("check_settings") == 2 and inner.calls.count("aclose") == 2


async def test_a_wrapped_bare_model_gets_the_defaults() -> None:
    wrapper = PassThrough(BareModel("x"))
    assert wrapper.context_window is None and wrapper.supports_reasoning
    assert not wrapper.created_by_loopwright
    wrapper.check_settings(ModelSettings(temperature=0.1), ["web_search"])
    await wrapper.aclose()


class MarkedTool(ToolBase):
    name = "marked"
    description = "marked tool"
    input_schema: dict[str, Any] = {"type": "object"}
    read_only = True
    timeout_seconds = 9.5
    idempotent = True

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("called")


class PassThroughTool(ToolWrapper):
    def __init__(self, inner: MinimalTool) -> None:
        self.inner = inner

    @property
    def wrapped(self) -> MinimalTool:
        return self.inner


async def test_the_tool_wrapper_passes_on_every_declared_member(tmp_path: Path) -> None:
    from loopwright.tools.base import SessionState

    ctx = ToolContext(state=SessionState(cwd=tmp_path), tool_use_id="t1")
    arguments: dict[str, tuple[Any, ...]] = {"call": ({}, ctx)}
    inner = MarkedTool()
    wrapper = PassThroughTool(inner)
    for name in members(Tool, MinimalTool):
        seen = await _observe(wrapper, name, arguments)
        expected = await _observe(inner, name, arguments)
        assert seen == expected, f"ToolWrapper does not pass on {name}"
    assert wrapper.input_schema is inner.input_schema  # the same object: one validator


def test_a_wrapped_bare_tool_has_no_timeout_or_idempotence() -> None:
    wrapper = PassThroughTool(BareTool())
    assert wrapper.timeout_seconds is None and wrapper.idempotent is None


class LockingStore(BareStore):
    """A foreign store with every optional member set."""

    location = "/somewhere"

    def lock_session(self, session_id: str) -> WriterLock:
        return _Lock()

    def path_of(self, session_id: str) -> Path | None:
        return Path("/somewhere") / session_id


class _Lock:
    def release(self) -> None:
        return None


def test_the_foreign_store_adapter_passes_on_every_optional_member() -> None:
    inner = LockingStore()
    assert adopt_store(inner) is inner  # it has every member: nothing to adapt
    adopted = ForeignStore(inner)
    optional = [n for n in members(SessionStore, MinimalStore) if n not in vars(MinimalStore)]
    assert optional == ["location", "lock_session", "path_of"]
    assert isinstance(adopted.lock_session("s"), _Lock)
    assert adopted.path_of("s") == Path("/somewhere/s")
    assert adopted.location == "/somewhere"


def test_ours_are_not_adapted() -> None:
    model = ScriptedModel([])
    from loopwright.models.base import adopt_model
    from loopwright.tools.base import adopt_tool

    assert adopt_model(model) is model
    tool = MarkedTool()
    assert adopt_tool(tool) is tool
