"""The host's process: stdin lines in, one session, one turn and one result per user line.

Order of events, as the SDKs drive it: ``initialize`` (hooks, agents, SDK MCP servers) →
the session opens → each ``user`` line runs a turn whose messages stream out, ending in a
``result`` → stdin EOF lets the running and queued turns finish, then the process exits:
1 when the last result was an error (as Claude Code does, so the SDK raises it), else 0.
Control requests are answered at any time, each in its own task, so an ``interrupt`` or
``set_permission_mode`` arrives while a turn waits on ``can_use_tool``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from loopwright.cli.claude_flags import sdk_server_names
from loopwright.cli.host.callbacks import permission_prompt
from loopwright.cli.host.control import ControlChannel
from loopwright.cli.host.initialize import Applied, apply_initialize, initialize_response
from loopwright.cli.host.requests import HANDLERS, RequestFailed, unsupported
from loopwright.cli.host.shape import SdkShaper, TurnState
from loopwright.cli.host.wire import LineWriter, claim_stdout, start_stdin_reader
from loopwright.errors import LoopwrightError
from loopwright.messages import (
    ContentBlock,
    ImageBlock,
    TextBlock,
    ToolResultBlock,
    UserMessage,
    new_uuid,
)
from loopwright.options import Options
from loopwright.types import PermissionMode

if TYPE_CHECKING:  # the engine loads after initialize is answered: the SDK waits for that
    from loopwright.client import Client


def run_host(options: Options, args: argparse.Namespace) -> int:
    return asyncio.run(Host(options, args, LineWriter(claim_stdout())).run())


class Host:
    def __init__(self, options: Options, args: argparse.Namespace, writer: LineWriter) -> None:
        self.max_turns = options.max_turns  # counted here, in the SDKs' terms
        checkpointing = os.environ.get("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING") == "true"
        self.options = dataclasses.replace(
            options,
            max_turns=None,
            enable_file_checkpointing=options.enable_file_checkpointing or checkpointing,
        )
        self.writer = writer
        self.control = ControlChannel(self.writer)
        self.shaper = SdkShaper(replay_user_messages=args.replay_user_messages)
        self.applied = Applied(sdk_servers=sdk_server_names(args.mcp_config))
        self.prompt_tool: str | None = args.permission_prompt_tool
        self.bypass_allowed = bool(
            args.allow_dangerously_skip_permissions
            or options.permission_mode == "bypassPermissions"
        )
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.ready = asyncio.Event()  # initialize answered, a user line, or EOF
        self.client: Client | None = None
        self.open_error: str | None = None
        self.turn: TurnState | None = None
        self.exit_code = 0
        self._answering: dict[str, asyncio.Task[None]] = {}
        self._initializing: asyncio.Task[None] | None = None
        self._opened = False

    async def run(self) -> int:
        start_stdin_reader(asyncio.get_running_loop(), self.deliver)
        await self.ready.wait()
        if self._initializing is not None:  # the TypeScript SDK sends a prompt right after it
            await asyncio.gather(self._initializing, return_exceptions=True)
        await self._open()
        try:
            while (line := await self.inbox.get()) is not None:
                await self._run_turn(line)
        finally:
            if self.client is not None:
                await self.client.disconnect()
        return self.exit_code

    # ----------------------------------------------------------------- stdin

    def deliver(self, raw: bytes | None) -> None:
        if raw is None:
            self.control.close("stdin closed: the SDK can no longer answer")
            self.inbox.put_nowait(None)
            self.ready.set()
            return
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            message = json.loads(text)
        except json.JSONDecodeError as exc:
            _warn(f"stdin line is not JSON ({exc.msg}); each line must be one JSON object")
            return
        if not isinstance(message, dict):
            _warn("stdin line is not a JSON object; ignored")
            return
        self._route(message)

    def _route(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "control_request":
            request_id = str(message.get("request_id"))
            task = asyncio.create_task(self._answer(request_id, message.get("request") or {}))
            self._answering[request_id] = task
            if (message.get("request") or {}).get("subtype") == "initialize":
                self._initializing = task
            task.add_done_callback(lambda _: self._answering.pop(request_id, None))
        elif kind == "control_response":
            self.control.receive(message)
        elif kind == "control_cancel_request":
            task = self._answering.get(str(message.get("request_id")))
            if task is not None:
                task.cancel()
        elif kind == "user":
            self.inbox.put_nowait(message)
            self.ready.set()
        elif kind not in ("keep_alive", "update_environment_variables"):
            _warn(f"stdin message of type {kind!r} is not understood; ignored")

    # ----------------------------------------------------------------- control

    async def _answer(self, request_id: str, request: dict[str, Any]) -> None:
        subtype = str(request.get("subtype"))
        try:
            if subtype == "initialize":
                body = self._initialize(request)
            elif subtype in HANDLERS:
                body = await HANDLERS[subtype](self, request)
            else:
                raise RequestFailed(unsupported(subtype))
        except asyncio.CancelledError:
            return  # the SDK cancelled it: no answer is expected
        except (RequestFailed, LoopwrightError, ValueError) as exc:
            self.writer.write(_error_response(request_id, str(exc)))
            return
        response = {"subtype": "success", "request_id": request_id, "response": body}
        self.writer.write({"type": "control_response", "response": response})
        if subtype == "initialize":
            self.ready.set()

    def _initialize(self, request: dict[str, Any]) -> dict[str, Any]:
        opened = self._opened
        if not opened:
            self.options = apply_initialize(self.options, request, self.control, self.applied)
        return initialize_response(self.options, hooks_applied=not opened)

    def interrupt(self) -> None:
        if self.turn is not None and self.client is not None:
            self.client.session.interrupt()

    def require_client(self, subtype: str) -> Client:
        if self.client is None:
            raise RequestFailed(f"{subtype}: the session is not open yet; send a message first")
        return self.client

    async def set_permission_mode(self, mode: PermissionMode) -> None:
        if self.client is not None:
            await self.client.set_permission_mode(mode)
        self.options.permission_mode = mode

    async def set_model(self, model: str | None) -> None:
        target = model or self.options.model
        if self.client is not None and target is not None:
            await self.client.set_model(target)

    # ----------------------------------------------------------------- turns

    async def _open(self) -> None:
        self._opened = True  # a later initialize cannot change this session's hooks
        from loopwright.cli.host.sdk_mcp import connect_sdk_server
        from loopwright.client import Client

        options = self.options
        try:
            if self.prompt_tool == "stdio":
                options = dataclasses.replace(options, can_use_tool=permission_prompt(self.control))
            elif self.prompt_tool:
                _warn(
                    f"--permission-prompt-tool {self.prompt_tool}: only 'stdio' is supported; "
                    "undecided tool calls are denied"
                )
            servers = {
                name: await connect_sdk_server(self.control, name, self.applied.manifests.get(name))
                for name in self.applied.sdk_servers
            }
            if servers:
                options = dataclasses.replace(
                    options, mcp_servers={**options.mcp_servers, **servers}
                )
            client = Client(options)
            await client.connect()
            self.client = client
        except Exception as exc:  # reported in each turn's result: the SDK raises it
            self.open_error = f"the session could not start: {exc}"
            _warn(self.open_error)

    async def _run_turn(self, line: dict[str, Any]) -> None:
        from loopwright.loop.run import agent_loop

        client = self.client
        if client is None:
            self.writer.write(_failed_result(self.open_error or "no session", self.options))
            self.exit_code = 1
            return
        turn = self.turn = TurnState(max_turns=self.max_turns)
        try:
            # The loop itself, not Client.query: it waits at each message while the host
            # writes it, so the max_turns stop below lands before the next model call.
            async for message in agent_loop(client.session, prompt_from_wire(line)):
                for shaped in self.shaper.lines(message, turn):
                    self.writer.write(shaped)
                if self._turns_used_up(turn, message):
                    turn.max_turns_hit = True
                    client.session.interrupt()  # stops before the next model response
        except Exception as exc:  # the stream broke: the SDK still gets one result
            self.writer.write(_failed_result(f"{type(exc).__name__}: {exc}", self.options))
            turn.last_error = True
        finally:
            self.turn = None
        self.exit_code = 1 if turn.last_error else 0

    def _turns_used_up(self, turn: TurnState, message: object) -> bool:
        """max_turns=N (the SDKs' meaning): after model response N's tools ran, no N+1."""
        return (
            turn.max_turns is not None
            and not turn.max_turns_hit
            and isinstance(message, UserMessage)
            and message.parent_tool_use_id is None
            and any(isinstance(b, ToolResultBlock) for b in message.blocks)
            and turn.responses >= turn.max_turns
        )


def prompt_from_wire(line: dict[str, Any]) -> UserMessage:
    """A stdin ``user`` line as a prompt: text, or text and image blocks."""
    body = line.get("message") or {}
    content = body.get("content", "") if isinstance(body, dict) else ""
    uuid = str(line.get("uuid") or new_uuid())
    if isinstance(content, str):
        return UserMessage(content, uuid=uuid)
    blocks: list[ContentBlock] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            blocks.append(TextBlock(str(block.get("text", ""))))
        elif block.get("type") == "image" and isinstance(block.get("source"), dict):
            source = block["source"]
            blocks.append(ImageBlock(str(source.get("media_type")), str(source.get("data"))))
    return UserMessage(blocks, uuid=uuid)


def _error_response(request_id: str, error: str) -> dict[str, Any]:
    return {
        "type": "control_response",
        "response": {"subtype": "error", "request_id": request_id, "error": error},
    }


def _failed_result(error: str, options: Options) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "duration_ms": 0,
        "duration_api_ms": 0,
        "num_turns": 0,
        "session_id": options.session_id or "",
        "total_cost_usd": 0.0,
        "usage": {"input_tokens": 0, "output_tokens": 0},
        "modelUsage": {},
        "permission_denials": [],
        "errors": [error],
        "uuid": new_uuid(),
    }


def _warn(text: str) -> None:
    print(f"loopwright: {text}", file=sys.stderr, flush=True)
