"""claude-agent-sdk's Python API on loopwright's native loop.

Replace ``from claude_agent_sdk import ...`` with
``from loopwright.compat.claude_agent_sdk import ...`` and the code runs in-process: no
Claude Code CLI, no subprocess, any provider loopwright supports. Differences worth knowing:

* ``query()`` raises after yielding an error result, as the reference does (loopwright's own
  ``query`` does not unless ``raise_on_error=True``); ``ClaudeSDKClient`` never raises for
  an error result, it yields it.
* ``ClaudeAgentOptions.model`` also accepts a loopwright Model (e.g. ``ScriptedModel``), and
  ``LOOPWRIGHT_MODEL`` in the environment replaces a model *string* written in the code.
* With ``include_partial_messages``, StreamEvents carry Anthropic-shaped events
  (``content_block_delta`` …) whichever provider runs, as code for the reference expects.
* Message and content-block classes are loopwright's own; they carry the fields the
  reference's classes have (``content``, ``result``, ``subtype``, ``total_cost_usd``,
  ``session_id``…), though ``usage`` is a :class:`~loopwright.messages.Usage`, not a dict.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Coroutine, Mapping
from typing import Any, TypeVar

from loopwright.client import Client, Prompt
from loopwright.client import query as native_query
from loopwright.compat._claude_options import (
    AgentDefinition,
    ClaudeAgentOptions,
    SettingSource,
    to_options,
)
from loopwright.compat._model_choice import choose_model
from loopwright.compat.claude_agent_sdk._errors import (
    ClaudeSDKError,
    CLIConnectionError,
    CLIJSONDecodeError,
    CLINotFoundError,
    ProcessError,
)
from loopwright.compat.claude_agent_sdk._sdk_types import (
    BaseHookInput,
    CanUseToolShadowedWarning,
    ContextUsageCategory,
    ContextUsageResponse,
    ConversationResetMessage,
    DeferredToolUse,
    EffortLevel,
    HookEventMessage,
    HookJSONOutput,
    McpServerConfig,
    McpServerConnectionStatus,
    McpServerInfo,
    McpServerStatus,
    McpServerStatusConfig,
    McpStatusResponse,
    McpToolAnnotations,
    McpToolInfo,
    MessageOrigin,
    MessageOriginKind,
    MirrorErrorMessage,
    ModelUsage,
    NotificationHookInput,
    NotificationHookSpecificOutput,
    PermissionRequestHookInput,
    PermissionRequestHookSpecificOutput,
    PermissionUpdate,
    PostToolUseFailureHookInput,
    PostToolUseFailureHookSpecificOutput,
    RateLimitEvent,
    RateLimitInfo,
    RateLimitStatus,
    RateLimitType,
    SandboxIgnoreViolations,
    SandboxNetworkConfig,
    SandboxSettings,
    SdkBeta,
    SdkPluginConfig,
    SDKSessionInfo,
    ServerToolName,
    ServerToolResultBlock,
    ServerToolUseBlock,
    SessionKey,
    SessionListSubkeysKey,
    SessionMessage,
    SessionStore,
    SessionStoreEntry,
    SessionStoreFlushMode,
    SessionStoreListEntry,
    SessionSummaryEntry,
    SubagentStartHookInput,
    SubagentStartHookSpecificOutput,
    TaskBudget,
    TaskNotificationMessage,
    TaskNotificationOriginSubkind,
    TaskNotificationStatus,
    TaskProgressMessage,
    TaskStartedMessage,
    TaskUpdatedMessage,
    TaskUpdatedStatus,
    TaskUsage,
    ThinkingConfig,
    ThinkingConfigAdaptive,
    ThinkingConfigDisabled,
    ThinkingConfigEnabled,
)
from loopwright.compat.claude_agent_sdk._stream_events import (
    ReferenceStreamEvents,
    in_reference_shape,
)
from loopwright.compat.claude_agent_sdk._tools import (
    McpSdkServerConfig,
    SdkMcpTool,
    ToolAnnotations,
    tool,
)
from loopwright.compat.claude_agent_sdk._trio_bridge import AsyncioThread, under_trio
from loopwright.errors import LoopwrightError
from loopwright.hooks.runner import (
    HookCallback,
    HookContext,
    HookEvent,
    HookInput,
    HookMatcher,
    PostToolUseHookInput,
    PreCompactHookInput,
    PreToolUseHookInput,
    StopHookInput,
    SubagentStopHookInput,
    UserPromptSubmitHookInput,
)
from loopwright.mcp.sdk_server import create_sdk_mcp_server
from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ImageBlock,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    block_from_dict,
)
from loopwright.models.base import Model
from loopwright.types import (
    CanUseTool,
    PermissionMode,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from loopwright.version import VERSION

T = TypeVar("T")
__version__ = VERSION  # loopwright's version: the compat layer ships with it


# --------------------------------------------------------------------------- prompts


async def _user_messages(stream: AsyncIterable[Any]) -> AsyncIterator[UserMessage | str]:
    """The reference's streaming input is dicts ``{"type": "user", "message": {"role":
    "user", "content": ...}}``; loopwright takes UserMessages (strings also pass through)."""
    async for item in stream:
        if isinstance(item, str | UserMessage):
            yield item
            continue
        message = item.get("message", item) if isinstance(item, Mapping) else None
        content: Any = message.get("content") if isinstance(message, Mapping) else None
        if content is None:
            raise LoopwrightError(
                "streaming input items must look like {'type': 'user', 'message': "
                f"{{'role': 'user', 'content': ...}}}}, got {item!r}"
            )
        yield UserMessage(_content(content), parent_tool_use_id=item.get("parent_tool_use_id"))


def _content(content: Any) -> str | list[ContentBlock]:
    if isinstance(content, str):
        return content
    blocks: list[ContentBlock] = []
    for raw in content:
        if raw.get("type") == "image" and isinstance(raw.get("source"), Mapping):
            source = raw["source"]
            blocks.append(ImageBlock(str(source.get("media_type")), str(source.get("data"))))
        else:
            blocks.append(block_from_dict(dict(raw)))
    return blocks


def _prompt(prompt: str | AsyncIterable[Any]) -> Prompt:
    return prompt if isinstance(prompt, str) else _user_messages(prompt)


# --------------------------------------------------------------------------- query


async def query(
    *,
    prompt: str | AsyncIterable[dict[str, Any]],
    options: ClaudeAgentOptions | None = None,
    transport: Any = None,
) -> AsyncIterator[Message]:
    """Run one session and yield its messages. Like the reference, an error result (turn
    limit, budget, failure) is yielded first and then raised as a ``ResultError``."""
    _no_transport(transport)
    messages = in_reference_shape(
        native_query(_prompt(prompt), to_options(options, raise_on_error=True))
    )
    if not under_trio():
        async for message in messages:
            yield message
        return
    bridge = AsyncioThread()
    try:
        async for message in bridge.iterate(messages):
            yield message
    finally:
        await bridge.run(messages.aclose())
        bridge.close()


def _no_transport(transport: Any) -> None:
    if transport is not None:
        raise LoopwrightError(
            "transport= configures the Claude Code CLI connection; loopwright runs the loop "
            "in-process and has no transport. Remove the argument."
        )


class ClaudeSDKClient:
    """A multi-turn session: ``async with ClaudeSDKClient(options) as client``, then
    ``await client.query(...)`` and ``async for m in client.receive_response()``."""

    def __init__(self, options: ClaudeAgentOptions | None = None, transport: Any = None):
        _no_transport(transport)
        self.options = options or ClaudeAgentOptions()
        self._client = Client(to_options(self.options, raise_on_error=False))
        self._stream_events = ReferenceStreamEvents()
        self._disconnected = False  # a used-up native Client: connect() needs a fresh one
        self._connected = False
        # Under trio the native session runs on an asyncio loop in a thread (see _trio_bridge).
        self._bridge: AsyncioThread | None = None

    async def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._bridge is None:
            return await coroutine
        return await self._bridge.run(coroutine)

    def _require_connection(self) -> None:
        # The reference raises CLIConnectionError here; code catches it by that name.
        if not self._connected:
            raise CLIConnectionError(
                "ClaudeSDKClient is not connected: call `await client.connect()` first, or use "
                "`async with ClaudeSDKClient(options) as client:`"
            )

    async def __aenter__(self) -> ClaudeSDKClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.disconnect()

    async def connect(self, prompt: str | AsyncIterable[dict[str, Any]] | None = None) -> None:
        if self._disconnected:
            # As with the reference, connecting again after disconnect() starts over; the
            # old Client's queues still hold its end-of-stream marker.
            self._client = Client(to_options(self.options, raise_on_error=False))
            self._stream_events = ReferenceStreamEvents()
            self._disconnected = False
        if self._bridge is None and under_trio():
            self._bridge = AsyncioThread()
        await self._call(self._client.connect())
        self._connected = True
        if prompt is not None:
            await self.query(prompt)

    async def disconnect(self) -> None:
        self._connected = False
        await self._call(self._client.disconnect())
        self._disconnected = True
        if self._bridge is not None:
            self._bridge.close()
            self._bridge = None

    async def query(
        self, prompt: str | AsyncIterable[dict[str, Any]], session_id: str = "default"
    ) -> None:
        """Queue a prompt. ``session_id`` is accepted for compatibility; a client is one
        session, so it has no effect."""
        self._require_connection()
        await self._call(self._client.query(_prompt(prompt)))

    async def receive_messages(self) -> AsyncIterator[Message]:
        self._require_connection()
        stream = self._client.receive_messages()
        if self._bridge is not None:
            stream = self._bridge.iterate(stream)
        async for message in stream:
            for translated in self._stream_events.translate(message):
                yield translated

    async def receive_response(self) -> AsyncIterator[Message]:
        """Messages up to and including the next ResultMessage."""
        async for message in self.receive_messages():
            yield message
            if isinstance(message, ResultMessage):
                return

    async def interrupt(self) -> None:
        self._require_connection()
        await self._call(self._client.interrupt())

    async def set_permission_mode(self, mode: PermissionMode) -> None:
        self._require_connection()
        await self._call(self._client.set_permission_mode(mode))

    async def set_model(self, model: str | Model | None = None) -> None:
        """Switch models from the next request on; ``None`` goes back to the configured one."""
        self._require_connection()
        from loopwright.models.registry import resolve_model

        chosen = choose_model(model if model is not None else self.options.model)
        await self._call(
            self._client.set_model(chosen if chosen is not None else resolve_model(None))
        )

    async def rewind_files(self, user_message_id: str) -> None:
        """Put the files tools changed since that user message back as they were before it
        (needs ``enable_file_checkpointing=True``)."""
        self._require_connection()
        await self._call(self._client.rewind_files(user_message_id))

    async def get_server_info(self) -> dict[str, Any] | None:
        self._require_connection()
        session = self._client.session
        return {
            "session_id": session.session_id,
            "model": session.agent.model.name,
            "tools": list(session.agent.tools),
        }

    async def get_mcp_status(self) -> dict[str, Any]:
        """Each server's state now (after reconnects, crashes, toggles), not at start."""
        self._require_connection()
        return {"mcpServers": self._client.mcp_status()}

    async def reconnect_mcp_server(self, server_name: str) -> None:
        self._require_connection()
        await self._call(self._client.reconnect_mcp_server(server_name))

    async def toggle_mcp_server(self, server_name: str, enabled: bool) -> None:
        self._require_connection()
        await self._call(self._client.toggle_mcp_server(server_name, enabled))


__all__ = [
    "AgentDefinition",
    "AssistantMessage",
    "BaseHookInput",
    "CLIConnectionError",
    "CLIJSONDecodeError",
    "CLINotFoundError",
    "CanUseTool",
    "CanUseToolShadowedWarning",
    "ClaudeAgentOptions",
    "ClaudeSDKClient",
    "ClaudeSDKError",
    "ContentBlock",
    "ContextUsageCategory",
    "ContextUsageResponse",
    "ConversationResetMessage",
    "DeferredToolUse",
    "EffortLevel",
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookEventMessage",
    "HookInput",
    "HookJSONOutput",
    "HookMatcher",
    "McpSdkServerConfig",
    "McpServerConfig",
    "McpServerConnectionStatus",
    "McpServerInfo",
    "McpServerStatus",
    "McpServerStatusConfig",
    "McpStatusResponse",
    "McpToolAnnotations",
    "McpToolInfo",
    "Message",
    "MessageOrigin",
    "MessageOriginKind",
    "MirrorErrorMessage",
    "ModelUsage",
    "NotificationHookInput",
    "NotificationHookSpecificOutput",
    "PermissionMode",
    "PermissionRequestHookInput",
    "PermissionRequestHookSpecificOutput",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionUpdate",
    "PostToolUseFailureHookInput",
    "PostToolUseFailureHookSpecificOutput",
    "PostToolUseHookInput",
    "PreCompactHookInput",
    "PreToolUseHookInput",
    "ProcessError",
    "RateLimitEvent",
    "RateLimitInfo",
    "RateLimitStatus",
    "RateLimitType",
    "ResultMessage",
    "SDKSessionInfo",
    "SandboxIgnoreViolations",
    "SandboxNetworkConfig",
    "SandboxSettings",
    "SdkBeta",
    "SdkMcpTool",
    "SdkPluginConfig",
    "ServerToolName",
    "ServerToolResultBlock",
    "ServerToolUseBlock",
    "SessionKey",
    "SessionListSubkeysKey",
    "SessionMessage",
    "SessionStore",
    "SessionStoreEntry",
    "SessionStoreFlushMode",
    "SessionStoreListEntry",
    "SessionSummaryEntry",
    "SettingSource",
    "StopHookInput",
    "StreamEvent",
    "SubagentStartHookInput",
    "SubagentStartHookSpecificOutput",
    "SubagentStopHookInput",
    "SystemMessage",
    "TaskBudget",
    "TaskNotificationMessage",
    "TaskNotificationOriginSubkind",
    "TaskNotificationStatus",
    "TaskProgressMessage",
    "TaskStartedMessage",
    "TaskUpdatedMessage",
    "TaskUpdatedStatus",
    "TaskUsage",
    "TextBlock",
    "ThinkingBlock",
    "ThinkingConfig",
    "ThinkingConfigAdaptive",
    "ThinkingConfigDisabled",
    "ThinkingConfigEnabled",
    "ToolAnnotations",
    "ToolPermissionContext",
    "ToolResultBlock",
    "ToolUseBlock",
    "UserMessage",
    "UserPromptSubmitHookInput",
    "__version__",
    "create_sdk_mcp_server",
    "query",
    "tool",
]
