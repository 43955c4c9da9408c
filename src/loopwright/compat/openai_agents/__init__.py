"""The OpenAI Agents SDK's API on loopwright.

Replace ``from agents import ...`` with ``from loopwright.compat.openai_agents import ...``
(and ``agents.X`` submodules with ``loopwright.compat.openai_agents.X``). An agent runs as a
loopwright session that sees exactly the agent's own tools, runs them without permission
prompts (that SDK has none), reads no settings files and keeps no transcript, as a Runner
run does. Handoffs, guardrails, approvals, sessions, hooks and tracing sit on loopwright's
native handoffs, guardrails, stores and OpenTelemetry spans.

* ``max_turns`` (default 10) counts model calls; going past it raises ``MaxTurnsExceeded``.
* ``final_output`` is the last text, or an instance of ``output_type`` built from
  structured output; ``tool_use_behavior`` may end the run with a tool's output.
* ``model`` strings go through ``RunConfig(model_provider=...)`` when given, through the
  client of ``set_default_openai_client`` when set, else loopwright's registry ("gpt-5" →
  OpenAI Responses API); ``LOOPWRIGHT_MODEL`` replaces them (``test`` runs any agent offline
  with TestModel). A ``Model`` subclass of the program's own is driven call by call.
* ``output_type`` is answered with the provider's native structured output (OpenAI
  Responses / Chat json_schema), through a StructuredOutput tool with the others.
* Tracing processors receive that SDK's span tree with its typed span data.

Hosted tools (web search, file search, code interpreter…), stored prompts, server-side
conversations and realtime/voice are not available; using them raises a ``UserError`` that
says what to use instead.
"""

from loopwright.compat.openai_agents._impl.agent import (
    Agent,
    AgentBase,
    ModelSettings,
    StopAtTools,
)
from loopwright.compat.openai_agents._impl.context import (
    AgentHookContext,
    RunContextWrapper,
    ToolContext,
    Usage,
)
from loopwright.compat.openai_agents._impl.errors import (
    AgentsException,
    MaxTurnsExceeded,
    ModelBehaviorError,
    UserError,
)
from loopwright.compat.openai_agents._impl.guardrails import (
    GuardrailFunctionOutput,
    InputGuardrail,
    InputGuardrailResult,
    InputGuardrailTripwireTriggered,
    OutputGuardrail,
    OutputGuardrailResult,
    OutputGuardrailTripwireTriggered,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
    input_guardrail,
    output_guardrail,
    tool_input_guardrail,
    tool_output_guardrail,
)
from loopwright.compat.openai_agents._impl.handoffs import Handoff, HandoffInputData, handoff
from loopwright.compat.openai_agents._impl.items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    TResponseInputItem,
)
from loopwright.compat.openai_agents._impl.lifecycle import AgentHooks, RunHooks
from loopwright.compat.openai_agents._impl.memory import (
    Session,
    SessionABC,
    SessionSettings,
    SQLiteSession,
)
from loopwright.compat.openai_agents._impl.memory_wrappers import OpenAIResponsesCompactionSession
from loopwright.compat.openai_agents._impl.model_interface import Model, ModelProvider, ModelTracing
from loopwright.compat.openai_agents._impl.models import (
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
)
from loopwright.compat.openai_agents._impl.output import (
    AgentOutputSchema,
    AgentOutputSchemaBase,
    FunctionToolResult,
    ToolErrorFormatterArgs,
    ToolsToFinalOutputResult,
)
from loopwright.compat.openai_agents._impl.providers import (
    MultiProvider,
    MultiProviderMap,
    OpenAIProvider,
    set_default_openai_api,
    set_default_openai_client,
    set_default_openai_key,
)
from loopwright.compat.openai_agents._impl.results import (
    RunResult,
    RunResultStreaming,
    RunState,
)
from loopwright.compat.openai_agents._impl.retry import (
    ModelRetrySettings,
    RetryDecision,
    retry_policies,
)
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.compat.openai_agents._impl.runner import Runner
from loopwright.compat.openai_agents._impl.shell import (
    ShellActionRequest,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
    ShellToolLocalSkill,
)
from loopwright.compat.openai_agents._impl.span_data import (
    AgentSpanData,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    MCPListToolsSpanData,
    ResponseSpanData,
    SpanData,
    TaskSpanData,
    TurnSpanData,
)
from loopwright.compat.openai_agents._impl.stream_events import (
    AgentUpdatedStreamEvent,
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    StreamEventType,
)
from loopwright.compat.openai_agents._impl.tools import (
    FunctionTool,
    ToolOutputImage,
    ToolOutputImageDict,
    ToolOutputText,
    ToolOutputTextDict,
    function_tool,
)
from loopwright.compat.openai_agents._impl.tracing import (
    Span,
    SpanError,
    Trace,
    TracingProcessor,
    add_trace_processor,
    agent_span,
    custom_span,
    flush_traces,
    function_span,
    gen_group_id,
    gen_span_id,
    gen_trace_id,
    generation_span,
    get_current_span,
    get_current_trace,
    guardrail_span,
    handoff_span,
    mcp_tools_span,
    response_span,
    set_trace_processors,
    set_tracing_disabled,
    set_tracing_export_api_key,
    task_span,
    trace,
    turn_span,
)
from loopwright.compat.openai_agents._impl.unsupported import (
    CodeInterpreterTool,
    ComputerTool,
    FileSearchTool,
    HostedMCPTool,
    ImageGenerationTool,
    OpenAIConversationsSession,
    WebSearchTool,
)
from loopwright.compat.openai_agents._impl.websocket import (
    ResponsesWebSocketSession,
    responses_websocket_session,
)

Tool = FunctionTool
# What an ``as_tool(on_stream=...)`` callback receives: {"event", "agent", "tool_call"}.
AgentToolStreamEvent = dict
ToolsToFinalOutputFunction = object  # a callable (context, results) -> ToolsToFinalOutputResult


__all__ = [
    "Agent",
    "AgentBase",
    "AgentHookContext",
    "AgentHooks",
    "AgentOutputSchema",
    "AgentOutputSchemaBase",
    "AgentSpanData",
    "AgentToolStreamEvent",
    "AgentUpdatedStreamEvent",
    "AgentsException",
    "CodeInterpreterTool",
    "ComputerTool",
    "CustomSpanData",
    "FileSearchTool",
    "FunctionSpanData",
    "FunctionTool",
    "FunctionToolResult",
    "GenerationSpanData",
    "GuardrailFunctionOutput",
    "GuardrailSpanData",
    "Handoff",
    "HandoffCallItem",
    "HandoffInputData",
    "HandoffOutputItem",
    "HandoffSpanData",
    "HostedMCPTool",
    "ImageGenerationTool",
    "InputGuardrail",
    "InputGuardrailResult",
    "InputGuardrailTripwireTriggered",
    "ItemHelpers",
    "MCPListToolsSpanData",
    "MaxTurnsExceeded",
    "MessageOutputItem",
    "Model",
    "ModelBehaviorError",
    "ModelProvider",
    "ModelResponse",
    "ModelRetrySettings",
    "ModelSettings",
    "ModelTracing",
    "MultiProvider",
    "MultiProviderMap",
    "OpenAIChatCompletionsModel",
    "OpenAIConversationsSession",
    "OpenAIProvider",
    "OpenAIResponsesCompactionSession",
    "OpenAIResponsesModel",
    "OutputGuardrail",
    "OutputGuardrailResult",
    "OutputGuardrailTripwireTriggered",
    "RawResponsesStreamEvent",
    "ReasoningItem",
    "ResponseSpanData",
    "ResponsesWebSocketSession",
    "RetryDecision",
    "RunConfig",
    "RunContextWrapper",
    "RunHooks",
    "RunItem",
    "RunItemStreamEvent",
    "RunResult",
    "RunResultStreaming",
    "RunState",
    "Runner",
    "SQLiteSession",
    "Session",
    "SessionABC",
    "SessionSettings",
    "ShellActionRequest",
    "ShellCallOutcome",
    "ShellCommandOutput",
    "ShellCommandRequest",
    "ShellResult",
    "ShellTool",
    "ShellToolLocalSkill",
    "Span",
    "SpanData",
    "SpanError",
    "StopAtTools",
    "StreamEventType",
    "TResponseInputItem",
    "TaskSpanData",
    "Tool",
    "ToolApprovalItem",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolContext",
    "ToolErrorFormatterArgs",
    "ToolGuardrailFunctionOutput",
    "ToolInputGuardrail",
    "ToolInputGuardrailData",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrail",
    "ToolOutputGuardrailData",
    "ToolOutputGuardrailTripwireTriggered",
    "ToolOutputImage",
    "ToolOutputImageDict",
    "ToolOutputText",
    "ToolOutputTextDict",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
    "Trace",
    "TracingProcessor",
    "TurnSpanData",
    "Usage",
    "UserError",
    "WebSearchTool",
    "add_trace_processor",
    "agent_span",
    "custom_span",
    "flush_traces",
    "function_span",
    "function_tool",
    "gen_group_id",
    "gen_span_id",
    "gen_trace_id",
    "generation_span",
    "get_current_span",
    "get_current_trace",
    "guardrail_span",
    "handoff",
    "handoff_span",
    "input_guardrail",
    "mcp_tools_span",
    "output_guardrail",
    "response_span",
    "responses_websocket_session",
    "retry_policies",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
    "set_trace_processors",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "task_span",
    "tool_input_guardrail",
    "tool_output_guardrail",
    "trace",
    "turn_span",
]
