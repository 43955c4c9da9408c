"""loopwright: a native, model-agnostic agent loop.

The public API is flat: ``from loopwright import query, Options, tool``. Importing the
package does no work; submodules load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from loopwright.version import VERSION as __version__

_EXPORTS: dict[str, str] = {
    "query": "loopwright.client",
    "run": "loopwright.client",
    "run_sync": "loopwright.client",
    "Client": "loopwright.client",
    "Options": "loopwright.options",
    "AgentDefinition": "loopwright.options",
    "ModelSettings": "loopwright.options",
    "tool": "loopwright.tools.base",
    "Tool": "loopwright.tools.base",
    "ToolResult": "loopwright.tools.base",
    "ToolContext": "loopwright.tools.base",
    "Model": "loopwright.models.base",
    "ModelRequest": "loopwright.models.base",
    "ThinkingConfig": "loopwright.models.base",
    "LoopwrightError": "loopwright.errors",
    "ConfigurationError": "loopwright.errors",
    "ModelError": "loopwright.errors",
    "ResultError": "loopwright.errors",
    "ApprovalError": "loopwright.errors",
    "PermissionResultAllow": "loopwright.types",
    "PermissionResultDeny": "loopwright.types",
    "PermissionResultDefer": "loopwright.types",
    "PendingCall": "loopwright.stores.approvals",
    "get_pending_approvals": "loopwright.stores.api",
    "Message": "loopwright.messages",
    "SystemMessage": "loopwright.messages",
    "AssistantMessage": "loopwright.messages",
    "UserMessage": "loopwright.messages",
    "StreamEvent": "loopwright.messages",
    "ResultMessage": "loopwright.messages",
    "TextBlock": "loopwright.messages",
    "ThinkingBlock": "loopwright.messages",
    "ToolUseBlock": "loopwright.messages",
    "ToolResultBlock": "loopwright.messages",
    "ImageBlock": "loopwright.messages",
    "ServerToolBlock": "loopwright.messages",
    "Usage": "loopwright.messages",
    "message_from_dict": "loopwright.messages",
    "Guardrail": "loopwright.guardrails",
    "GuardrailInput": "loopwright.guardrails",
    "GuardrailVerdict": "loopwright.guardrails",
    "HandoffAgent": "loopwright.subagents.handoffs",
    "handoff": "loopwright.subagents.handoffs",
    "PermissionMode": "loopwright.types",
    "PermissionResult": "loopwright.types",
    "ToolPermissionContext": "loopwright.types",
    "CanUseTool": "loopwright.types",
    "AskUser": "loopwright.types",
    "HookMatcher": "loopwright.hooks.runner",
    "HookContext": "loopwright.hooks.runner",
    "HookCallback": "loopwright.hooks.runner",
    "HookEvent": "loopwright.hooks.runner",
    "HookInput": "loopwright.hooks.runner",
    "PreToolUseHookInput": "loopwright.hooks.runner",
    "PostToolUseHookInput": "loopwright.hooks.runner",
    "PostToolUseFailureHookInput": "loopwright.hooks.runner",
    "PermissionRequestHookInput": "loopwright.hooks.runner",
    "UserPromptSubmitHookInput": "loopwright.hooks.runner",
    "StopHookInput": "loopwright.hooks.runner",
    "SubagentStartHookInput": "loopwright.hooks.runner",
    "SubagentStopHookInput": "loopwright.hooks.runner",
    "PreCompactHookInput": "loopwright.hooks.runner",
    "SessionStartHookInput": "loopwright.hooks.runner",
    "SessionEndHookInput": "loopwright.hooks.runner",
    "NotificationHookInput": "loopwright.hooks.runner",
    "create_sdk_mcp_server": "loopwright.mcp.sdk_server",
    "McpServerConfig": "loopwright.mcp.config",
    "SandboxSettings": "loopwright.sandbox.bwrap",
    "ModelPrice": "loopwright.cost",
    "register_price": "loopwright.cost",
}

__all__ = [
    "AgentDefinition",
    "ApprovalError",
    "AskUser",
    "AssistantMessage",
    "CanUseTool",
    "Client",
    "ConfigurationError",
    "Guardrail",
    "GuardrailInput",
    "GuardrailVerdict",
    "HandoffAgent",
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookInput",
    "HookMatcher",
    "ImageBlock",
    "LoopwrightError",
    "McpServerConfig",
    "Message",
    "Model",
    "ModelError",
    "ModelPrice",
    "ModelRequest",
    "ModelSettings",
    "NotificationHookInput",
    "Options",
    "PendingCall",
    "PermissionMode",
    "PermissionRequestHookInput",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDefer",
    "PermissionResultDeny",
    "PostToolUseFailureHookInput",
    "PostToolUseHookInput",
    "PreCompactHookInput",
    "PreToolUseHookInput",
    "ResultError",
    "ResultMessage",
    "SandboxSettings",
    "ServerToolBlock",
    "SessionEndHookInput",
    "SessionStartHookInput",
    "StopHookInput",
    "StreamEvent",
    "SubagentStartHookInput",
    "SubagentStopHookInput",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "ThinkingConfig",
    "Tool",
    "ToolContext",
    "ToolPermissionContext",
    "ToolResult",
    "ToolResultBlock",
    "ToolUseBlock",
    "Usage",
    "UserMessage",
    "UserPromptSubmitHookInput",
    "create_sdk_mcp_server",
    "get_pending_approvals",
    "handoff",
    "message_from_dict",
    "query",
    "register_price",
    "run",
    "run_sync",
    "tool",
]

if TYPE_CHECKING:
    from loopwright.client import Client, query, run, run_sync
    from loopwright.cost import ModelPrice, register_price
    from loopwright.errors import (
        ApprovalError,
        ConfigurationError,
        LoopwrightError,
        ModelError,
        ResultError,
    )
    from loopwright.guardrails import Guardrail, GuardrailInput, GuardrailVerdict
    from loopwright.hooks.runner import (
        HookCallback,
        HookContext,
        HookEvent,
        HookInput,
        HookMatcher,
        NotificationHookInput,
        PermissionRequestHookInput,
        PostToolUseFailureHookInput,
        PostToolUseHookInput,
        PreCompactHookInput,
        PreToolUseHookInput,
        SessionEndHookInput,
        SessionStartHookInput,
        StopHookInput,
        SubagentStartHookInput,
        SubagentStopHookInput,
        UserPromptSubmitHookInput,
    )
    from loopwright.mcp.config import McpServerConfig
    from loopwright.mcp.sdk_server import create_sdk_mcp_server
    from loopwright.messages import (
        AssistantMessage,
        ImageBlock,
        Message,
        ResultMessage,
        ServerToolBlock,
        StreamEvent,
        SystemMessage,
        TextBlock,
        ThinkingBlock,
        ToolResultBlock,
        ToolUseBlock,
        Usage,
        UserMessage,
        message_from_dict,
    )
    from loopwright.models.base import Model, ModelRequest, ThinkingConfig
    from loopwright.options import AgentDefinition, ModelSettings, Options
    from loopwright.sandbox.bwrap import SandboxSettings
    from loopwright.stores.api import get_pending_approvals
    from loopwright.stores.approvals import PendingCall
    from loopwright.subagents.handoffs import HandoffAgent, handoff
    from loopwright.tools.base import Tool, ToolContext, ToolResult, tool
    from loopwright.types import (
        AskUser,
        CanUseTool,
        PermissionMode,
        PermissionResult,
        PermissionResultAllow,
        PermissionResultDefer,
        PermissionResultDeny,
        ToolPermissionContext,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'loopwright' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
