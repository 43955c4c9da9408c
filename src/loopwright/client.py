"""Entry points: ``query()``, ``run()``, ``run_sync()`` and the multi-turn ``Client``.

All of them consume the one stream that :func:`loopwright.loop.agent_loop` yields.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loopwright.errors import LoopwrightError, ResultError
from loopwright.loop.run import agent_loop
from loopwright.loop.subagents import install_subagents
from loopwright.messages import Message, ResultMessage, UserMessage
from loopwright.models.base import MinimalModel
from loopwright.options import Options
from loopwright.options.validation import check_permission_mode
from loopwright.session.approvals import take_approvals
from loopwright.session.assemble import assemble_session
from loopwright.session.extensions import MCP_RESOURCE
from loopwright.session.session import Session
from loopwright.stores.follow import attach_session
from loopwright.types import ApprovalDecision, PermissionMode

if TYPE_CHECKING:
    from loopwright.mcp.features import McpPrompt, McpPromptResult, McpResource, ResourceContent
    from loopwright.stores.approvals import PendingCall

Prompt = str | UserMessage | AsyncIterable[UserMessage | str]


async def open_session(options: Options) -> Session:
    """The session, able to run subagents through the loop."""
    session = await assemble_session(options)
    install_subagents(session)
    if MCP_RESOURCE in session.state.resources:  # sessions without MCP never import it
        from loopwright.mcp.live import bind_session

        bind_session(session)
    return session


async def _prompts(prompt: Prompt | None) -> AsyncIterator[UserMessage | None]:
    if prompt is None:  # go on from the calls that waited for approval
        yield None
    elif isinstance(prompt, str):
        yield UserMessage(prompt)
    elif isinstance(prompt, UserMessage):
        yield prompt
    else:
        async for item in prompt:
            yield UserMessage(item) if isinstance(item, str) else item


async def _run_prompts(session: Session, prompt: Prompt | None) -> AsyncIterator[Message]:
    async for user_message in _prompts(prompt):
        if user_message is not None and MCP_RESOURCE in session.state.resources:
            # The current tool set, /mcp__server__prompt commands, @server:uri mentions.
            from loopwright.mcp.live import prepare_prompt

            user_message = await prepare_prompt(session, user_message)
        async for message in agent_loop(session, user_message):
            yield message
            if (
                isinstance(message, ResultMessage)
                and message.is_error
                and session.agent.options.raise_on_error
            ):
                raise ResultError(message)


async def query(prompt: Prompt | None, options: Options | None = None) -> AsyncIterator[Message]:
    """Run the agent on ``prompt`` and yield every message; the last is a ResultMessage.

    ``prompt`` is a string or an async iterable of user messages (streaming input: each
    one is answered in turn, in the same session). None goes on from the calls of the
    resumed session that waited for approval (``Options(resume=id, approvals=...)``).
    """
    session = await open_session(options or Options())
    one_prompt = prompt is None or isinstance(prompt, str | UserMessage)
    try:
        async for message in _run_prompts(session, prompt):
            if one_prompt and isinstance(message, ResultMessage):
                # The run's last entry is on record: a caller that stops iterating at the
                # result (and leaves the generator to be finalised later) can resume the
                # session at once instead of finding it still locked.
                await session.stop_writing()
            yield message
    finally:
        await session.aclose()


async def run(prompt: Prompt | None, options: Options | None = None) -> ResultMessage:
    """Run to completion and return the (last) ResultMessage."""
    result: ResultMessage | None = None
    async for message in query(prompt, options):
        if isinstance(message, ResultMessage):
            result = message
    if result is None:  # pragma: no cover - the loop always ends with a result
        raise LoopwrightError("the run produced no result message")
    return result


def run_sync(prompt: str | None, options: Options | None = None) -> ResultMessage:
    """Blocking :func:`run`, for scripts and notebooks without an event loop."""
    return asyncio.run(run(prompt, options))


class _GoOn:
    """A Client run without a prompt: it settles the calls that waited for approval."""


class Client:
    """A long-lived session: several prompts share one conversation.

    ``query()`` queues a prompt (a string, a UserMessage, or an async iterable of them for
    streaming input) and returns at once; one worker task answers prompts in order, and
    ``receive_response()`` yields messages up to and including the next ResultMessage.
    ``interrupt()`` stops the response that is running, from any task.
    """

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        self._session: Session | None = None
        self._inbox: asyncio.Queue[Prompt | _GoOn | None] = asyncio.Queue()
        self._outbox: asyncio.Queue[Message | BaseException | None] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._busy = False

    def attach(self, session_id: str) -> AsyncIterator[Message]:
        """Follow a session that another process runs (a fleet worker, another Client), in
        the store ``options.session_store`` names: its messages so far, then new ones live,
        until its run ends. Read-only; this Client need not be connected."""
        return attach_session(session_id, self.options.session_store, cwd=self.options.cwd)

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.disconnect()

    async def connect(self) -> None:
        if self._session is None:
            # Fresh queues: a reconnected client must not read the last session's end marker.
            self._inbox = asyncio.Queue()
            self._outbox = asyncio.Queue()
            self._session = await open_session(self.options)
            self._worker = asyncio.create_task(self._serve(self._session))

    @property
    def session(self) -> Session:
        """The connected session (its Agent, Conversation and Spend)."""
        if self._session is None:
            raise LoopwrightError("the Client is not connected; use `async with Client(...)`")
        return self._session

    @property
    def session_id(self) -> str:
        return self.session.session_id

    async def _serve(self, session: Session) -> None:
        while (prompt := await self._inbox.get()) is not None:
            self._busy = True
            try:
                chosen = None if isinstance(prompt, _GoOn) else prompt
                async for message in _run_prompts(session, chosen):
                    self._outbox.put_nowait(message)
            except Exception as exc:  # delivered to the reader, never lost in a task
                self._outbox.put_nowait(exc)
            finally:
                self._busy = False

    async def query(self, prompt: Prompt) -> None:
        """Queue a prompt; read the answer with :meth:`receive_response`."""
        self.session  # noqa: B018 - raises a clear error when not connected
        self._inbox.put_nowait(prompt)

    @property
    def pending_approvals(self) -> list[PendingCall]:
        """The calls of this session that wait for approval (after a pending_approval
        result, or when resumed while they waited)."""
        pending = self.session.pending
        return list(pending.calls) if pending is not None else []

    async def answer_approvals(self, approvals: Mapping[str, ApprovalDecision]) -> None:
        """Answer the calls that wait (by tool_use_id) and go on: the approved ones run,
        the denied ones are answered; read the rest with :meth:`receive_response`.
        Raises ApprovalError (nothing runs) for a call that is not waiting."""
        session = self.session
        take_approvals(session, dataclasses.replace(self.options, approvals=dict(approvals)))
        self._inbox.put_nowait(_GoOn())

    async def receive_messages(self) -> AsyncIterator[Message]:
        """Every message, as the worker produces them, until the client disconnects."""
        while (item := await self._outbox.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item

    async def receive_response(self) -> AsyncIterator[Message]:
        """Messages up to and including the next ResultMessage."""
        async for message in self.receive_messages():
            yield message
            if isinstance(message, ResultMessage):
                return

    async def interrupt(self) -> None:
        """Stop the running (or next queued) response; it ends with an ``interrupted``
        result. With nothing running or queued there is nothing to stop."""
        if self._busy or not self._inbox.empty():
            self.session.interrupt()

    async def set_model(self, model: str | MinimalModel) -> None:
        """Use another model from the next request on (a new Agent, same conversation)."""
        from loopwright.session.resolve import resolve_model, with_retries

        session = self.session
        replacement = with_retries(resolve_model(model), self.options)
        session.use_agent(dataclasses.replace(session.agent, model=replacement))

    async def set_permission_mode(self, mode: PermissionMode) -> None:
        """Change the permission mode from the next tool call on.

        An unknown mode raises OptionsError listing the valid ones (the mode is unchanged).
        """
        check_permission_mode(mode, "set_permission_mode(mode)")
        self.session.agent.gate.set_mode(mode)

    async def rewind_files(self, user_message_uuid: str) -> list[Path]:
        """Put the files tools changed at or after that prompt back as they were before it
        (needs ``enable_file_checkpointing=True``); returns the paths restored."""
        checkpoints = self.session.checkpoints
        if checkpoints is None:
            raise LoopwrightError(
                "no file checkpoints in this session; pass Options(enable_file_checkpointing="
                "True) to snapshot the files tools change"
            )
        return checkpoints.rewind(user_message_uuid)

    # MCP: live state, prompts and resources (see loopwright.mcp.live).
    def mcp_status(self) -> list[dict[str, Any]]:
        """Each MCP server's state now: connected, pending, failed, disabled or needs-auth."""
        from loopwright.mcp import live as mcp_live

        return mcp_live.status_of(self.session)

    async def reconnect_mcp_server(self, name: str) -> dict[str, Any]:
        from loopwright.mcp import live as mcp_live

        return await mcp_live.reconnect(self.session, name)

    async def toggle_mcp_server(self, name: str, enabled: bool) -> dict[str, Any]:
        """Disable (stop, hide its tools) or enable an MCP server; tools change between turns."""
        from loopwright.mcp import live as mcp_live

        return await mcp_live.set_enabled(self.session, name, enabled)

    async def list_prompts(self, server: str | None = None) -> list[McpPrompt]:
        """Prompts of one MCP server or all; each is also ``/mcp__<server>__<name>``."""
        from loopwright.mcp import live as mcp_live
        from loopwright.mcp.catalog import list_prompts

        listing = await list_prompts(mcp_live.require_manager(self.session), server)
        return list(listing.prompts)

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> McpPromptResult:
        from loopwright.mcp import live as mcp_live
        from loopwright.mcp.catalog import get_prompt

        return await get_prompt(mcp_live.require_manager(self.session), server, name, arguments)

    async def list_resources(self, server: str | None = None) -> list[McpResource]:
        from loopwright.mcp import live as mcp_live
        from loopwright.mcp.catalog import list_resources

        listing = await list_resources(mcp_live.require_manager(self.session), server)
        return list(listing.resources)

    async def read_resource(self, server: str, uri: str) -> list[ResourceContent]:
        from loopwright.mcp import live as mcp_live
        from loopwright.mcp.catalog import read_resource

        return await read_resource(mcp_live.require_manager(self.session), server, uri)

    def get_context_usage(self) -> dict[str, Any]:
        """Tokens the next request will carry, the window, and the share used."""
        session = self.session
        agent, history = session.agent, session.conversation.messages
        count = session.meter.count(history, system=agent.system_prompt, tools=agent.tool_specs())
        return {**count.to_dict(), "model": agent.model.name, "messages": len(history)}

    async def disconnect(self) -> None:
        if self._worker is not None:
            while not self._inbox.empty():  # prompts not started yet are dropped
                self._inbox.get_nowait()
            self._inbox.put_nowait(None)
            if self._session is not None:
                self._session.interrupt()
            await asyncio.gather(self._worker, return_exceptions=True)
            self._worker = None
            self._outbox.put_nowait(None)  # readers still waiting end here
        if self._session is not None:
            await self._session.aclose()
            self._session = None

    def __repr__(self) -> str:
        state = self._session.session_id if self._session else "disconnected"
        return f"Client({state})"
