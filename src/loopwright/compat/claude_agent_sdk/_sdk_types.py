"""The rest of the names ``claude_agent_sdk.types`` exports, for code that imports them.

Most are shapes of plain dicts (TypedDicts) or string choices; they are defined here so type
hints and ``TypedDict(...)`` calls keep working. The ``SDKControl*`` request shapes describe
the JSON protocol between that SDK and the Claude Code CLI; loopwright runs in-process and
never sends them. Message classes that loopwright does not produce (task notifications,
rate-limit events…) are defined so ``isinstance`` checks simply never match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypedDict

from loopwright.messages import SystemMessage

SdkBeta = Literal["context-1m-2025-08-07"]
EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]
PermissionUpdateDestination = Literal["userSettings", "projectSettings", "localSettings", "session"]
PermissionBehavior = Literal["allow", "deny", "ask"]
McpServerConnectionStatus = Literal["connected", "failed", "needs-auth", "pending", "disabled"]
ServerToolName = Literal["web_search", "web_fetch", "code_execution", "bash_code_execution"]
AssistantMessageError = Literal[
    "authentication_failed",
    "billing_error",
    "rate_limit",
    "invalid_request",
    "server_error",
    "unknown",
]
MessageOriginKind = Literal["human", "task-notification", "system"]
TaskNotificationOriginSubkind = Literal["scheduled-trigger", "peer-send-message"]
TaskNotificationStatus = Literal["completed", "failed", "stopped"]
TaskUpdatedStatus = Literal["pending", "running", "completed", "failed", "stopped"]
RateLimitStatus = Literal["allowed", "allowed_warning", "rejected"]
RateLimitType = Literal["five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet", "overage"]
SessionStoreFlushMode = Literal["batched", "eager"]
ThinkingDisplay = Literal["summarized", "omitted"]


class SystemPromptPreset(TypedDict, total=False):
    type: Literal["preset"]
    preset: Literal["claude_code"]
    append: str


class SystemPromptFile(TypedDict, total=False):
    type: Literal["file"]
    path: str


class TaskBudget(TypedDict, total=False):
    total: int


class ToolsPreset(TypedDict, total=False):
    type: Literal["preset"]
    preset: Literal["claude_code"]


@dataclass
class PermissionRuleValue:
    tool_name: str
    rule_content: str | None = None


@dataclass
class PermissionUpdate:
    type: str
    rules: list[PermissionRuleValue] | None = None
    behavior: PermissionBehavior | None = None
    mode: str | None = None
    directories: list[str] | None = None
    destination: PermissionUpdateDestination | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class BaseHookInput(TypedDict, total=False):
    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: str


class PostToolUseFailureHookInput(BaseHookInput, total=False):
    hook_event_name: Literal["PostToolUseFailure"]
    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str
    error: str


class NotificationHookInput(BaseHookInput, total=False):
    hook_event_name: Literal["Notification"]
    message: str
    title: str


class SubagentStartHookInput(BaseHookInput, total=False):
    hook_event_name: Literal["SubagentStart"]
    agent_id: str
    agent_type: str


class PermissionRequestHookInput(BaseHookInput, total=False):
    hook_event_name: Literal["PermissionRequest"]
    tool_name: str
    tool_input: dict[str, Any]


class PreToolUseHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["PreToolUse"]
    permissionDecision: Literal["allow", "deny", "ask"]
    permissionDecisionReason: str
    updatedInput: dict[str, Any]
    additionalContext: str


class PostToolUseHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["PostToolUse"]
    additionalContext: str
    updatedMCPToolOutput: Any


class PostToolUseFailureHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["PostToolUseFailure"]
    additionalContext: str


class UserPromptSubmitHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["UserPromptSubmit"]
    additionalContext: str


class SessionStartHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["SessionStart"]
    additionalContext: str


class NotificationHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["Notification"]
    additionalContext: str


class SubagentStartHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["SubagentStart"]
    additionalContext: str


class PermissionRequestHookSpecificOutput(TypedDict, total=False):
    hookEventName: Literal["PermissionRequest"]
    decision: dict[str, Any]


HookSpecificOutput = (
    PreToolUseHookSpecificOutput
    | PostToolUseHookSpecificOutput
    | PostToolUseFailureHookSpecificOutput
    | UserPromptSubmitHookSpecificOutput
    | SessionStartHookSpecificOutput
    | NotificationHookSpecificOutput
    | SubagentStartHookSpecificOutput
    | PermissionRequestHookSpecificOutput
)


class AsyncHookJSONOutput(TypedDict, total=False):
    """A hook that answers later (``async_`` is sent as ``async``)."""

    async_: Literal[True]
    asyncTimeout: int


class SyncHookJSONOutput(TypedDict, total=False):
    """What a hook callback returns; every key optional (``continue_`` is sent as
    ``continue``)."""

    continue_: bool
    suppressOutput: bool
    stopReason: str
    decision: Literal["block"]
    systemMessage: str
    reason: str
    hookSpecificOutput: HookSpecificOutput


HookJSONOutput = AsyncHookJSONOutput | SyncHookJSONOutput


class McpStdioServerConfig(TypedDict, total=False):
    type: Literal["stdio"]
    command: str
    args: list[str]
    env: dict[str, str]


class McpSSEServerConfig(TypedDict, total=False):
    type: Literal["sse"]
    url: str
    headers: dict[str, str]


class McpHttpServerConfig(TypedDict, total=False):
    type: Literal["http"]
    url: str
    headers: dict[str, str]


class McpSdkServerConfigStatus(TypedDict, total=False):
    type: Literal["sdk"]
    name: str


class McpClaudeAIProxyServerConfig(TypedDict, total=False):
    type: Literal["claudeai-proxy"]
    url: str
    id: str


McpServerConfig = McpStdioServerConfig | McpSSEServerConfig | McpHttpServerConfig | dict[str, Any]
McpServerStatusConfig = (
    McpStdioServerConfig | McpSSEServerConfig | McpHttpServerConfig | McpSdkServerConfigStatus
)


class McpToolAnnotations(TypedDict, total=False):
    readOnly: bool
    destructive: bool
    openWorld: bool


class McpToolInfo(TypedDict, total=False):
    name: str
    description: str
    annotations: McpToolAnnotations


class McpServerInfo(TypedDict, total=False):
    name: str
    version: str


class McpServerStatus(TypedDict, total=False):
    name: str
    status: McpServerConnectionStatus
    serverInfo: McpServerInfo
    error: str
    tools: list[McpToolInfo]


class McpStatusResponse(TypedDict, total=False):
    mcpServers: list[McpServerStatus]


class ContextUsageCategory(TypedDict, total=False):
    name: str
    tokens: int


class ContextUsageResponse(TypedDict, total=False):
    categories: list[ContextUsageCategory]
    totalTokens: int
    maxTokens: int


class SdkPluginConfig(TypedDict, total=False):
    type: Literal["local"]
    path: str


class SandboxNetworkConfig(TypedDict, total=False):
    allowedDomains: list[str]
    allowUnixSockets: list[str]
    allowLocalBinding: bool


class SandboxIgnoreViolations(TypedDict, total=False):
    file: list[str]
    network: list[str]


class SandboxSettings(TypedDict, total=False):
    enabled: bool
    autoAllowBashIfSandboxed: bool
    excludedCommands: list[str]
    network: SandboxNetworkConfig
    ignoreViolations: SandboxIgnoreViolations


class MessageOrigin(TypedDict, total=False):
    kind: MessageOriginKind


class TaskUsage(TypedDict, total=False):
    total_tokens: int
    tool_uses: int
    duration_ms: int


class ModelUsage(TypedDict, total=False):
    inputTokens: int
    outputTokens: int
    cacheReadInputTokens: int
    cacheCreationInputTokens: int
    costUSD: float


@dataclass
class ServerToolUseBlock:
    id: str
    name: ServerToolName
    input: dict[str, Any]


@dataclass
class ServerToolResultBlock:
    tool_use_id: str
    content: Any


@dataclass
class DeferredToolUse:
    id: str
    name: str
    input: dict[str, Any]


@dataclass
class RateLimitInfo:
    status: RateLimitStatus
    resets_at: int | None = None
    rate_limit_type: RateLimitType | None = None


@dataclass
class RateLimitEvent:
    rate_limit_info: RateLimitInfo
    uuid: str = ""
    session_id: str = ""


@dataclass
class ConversationResetMessage:
    session_id: str = ""
    uuid: str = ""


def _system_subclass(name: str) -> type[SystemMessage]:
    # SystemMessage is a slotted dataclass; these subclasses add no fields of their own.
    return type(name, (SystemMessage,), {"__slots__": ()})


TaskStartedMessage = _system_subclass("TaskStartedMessage")
TaskProgressMessage = _system_subclass("TaskProgressMessage")
TaskNotificationMessage = _system_subclass("TaskNotificationMessage")
TaskUpdatedMessage = _system_subclass("TaskUpdatedMessage")
MirrorErrorMessage = _system_subclass("MirrorErrorMessage")
HookEventMessage = _system_subclass("HookEventMessage")


class SessionKey(TypedDict, total=False):
    project_key: str
    session_id: str
    subpath: str


class SessionStoreEntry(TypedDict, total=False):
    type: str
    uuid: str
    timestamp: str


class SessionStoreListEntry(TypedDict, total=False):
    session_id: str
    mtime: int


class SessionSummaryEntry(TypedDict, total=False):
    session_id: str
    mtime: int
    data: dict[str, Any]


class SessionListSubkeysKey(TypedDict, total=False):
    project_key: str
    session_id: str


class SessionStore(Protocol):
    async def append(self, key: SessionKey, entries: list[SessionStoreEntry]) -> None: ...
    async def load(self, key: SessionKey) -> list[SessionStoreEntry] | None: ...


@dataclass
class SDKSessionInfo:
    session_id: str
    summary: str = ""
    last_modified: int = 0
    file_size: int | None = None
    custom_title: str | None = None
    first_prompt: str | None = None
    git_branch: str | None = None
    cwd: str | None = None
    tag: str | None = None
    created_at: int | None = None


@dataclass
class SessionMessage:
    type: Literal["user", "assistant"]
    uuid: str
    session_id: str
    message: Any = None
    parent_tool_use_id: str | None = None


class ThinkingConfigAdaptive(TypedDict, total=False):
    type: Literal["adaptive"]
    display: ThinkingDisplay


class ThinkingConfigEnabled(TypedDict, total=False):
    type: Literal["enabled"]
    budget_tokens: int
    display: ThinkingDisplay


class ThinkingConfigDisabled(TypedDict, total=False):
    type: Literal["disabled"]


ThinkingConfig = ThinkingConfigAdaptive | ThinkingConfigEnabled | ThinkingConfigDisabled


class CanUseToolShadowedWarning(UserWarning):
    """can_use_tool is set but an allow rule or mode decides first."""


class _ControlMessage(TypedDict, total=False):
    subtype: str


SDKControlInterruptRequest = _ControlMessage
SDKControlPermissionRequest = _ControlMessage
SDKControlInitializeRequest = _ControlMessage
SDKControlSetPermissionModeRequest = _ControlMessage
SDKHookCallbackRequest = _ControlMessage
SDKControlMcpMessageRequest = _ControlMessage
SDKControlRewindFilesRequest = _ControlMessage
SDKControlMcpReconnectRequest = _ControlMessage
SDKControlMcpToggleRequest = _ControlMessage
SDKControlStopTaskRequest = _ControlMessage


class SDKControlRequest(TypedDict, total=False):
    type: Literal["control_request"]
    request_id: str
    request: _ControlMessage


class ControlResponse(TypedDict, total=False):
    subtype: Literal["success"]
    request_id: str
    response: dict[str, Any]


class ControlErrorResponse(TypedDict, total=False):
    subtype: Literal["error"]
    request_id: str
    error: str


class SDKControlResponse(TypedDict, total=False):
    type: Literal["control_response"]
    response: ControlResponse | ControlErrorResponse
