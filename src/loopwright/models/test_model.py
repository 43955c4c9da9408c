"""``TestModel``: an offline model that needs no script (model string ``test``).

Given any request it behaves like a diligent but unimaginative model: it first calls every
offered tool it has not called yet since the user's last prompt, each once, with arguments
generated to be valid for the tool's schema; once every tool has been called it answers —
with a text that reports what the tools returned, or, when the run wants structured output,
with a ``StructuredOutput`` call whose value is valid for the requested schema. Any agent,
example or compat script can therefore run end to end without writing a script.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ConversationMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
)
from loopwright.models.base import (
    ModelBase,
    ModelEvent,
    ModelRequest,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
    ToolSpec,
)

# The structured-output tool (tools.structured_output names it; models may not import tools).
_STRUCTURED_OUTPUT = "StructuredOutput"
NO_TOOL_CALLS_ANSWER = "success (no tool calls)"
REASONING_SUMMARY = "Working out which tools to call and what to answer."


class TestModel(ModelBase):
    """Calls each offered tool once with schema-valid arguments, then answers.

    ``call_tools`` limits which tools are called (``"all"`` by default, ``[]`` for none);
    ``custom_output_text`` replaces the generated final text; ``custom_output_args`` the
    generated structured output.
    """

    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        *,
        call_tools: Sequence[str] | str = "all",
        custom_output_text: str | None = None,
        custom_output_args: Any = None,
        name: str = "test",
    ) -> None:
        self._call_tools = call_tools
        self._custom_text = custom_output_text
        self._custom_args = custom_output_args
        self._name = name
        self.requests: list[ModelRequest] = []

    @property
    def name(self) -> str:
        return self._name

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        # Numbered by the conversation's turn, so ids stay unique even when several
        # TestModels (agents handing over to each other) share one conversation.
        turn = 1 + sum(isinstance(m, AssistantMessage) for m in request.messages)
        return self._answer(request, turn)

    async def _answer(self, request: ModelRequest, counter: int) -> AsyncIterator[ModelEvent]:
        content = self._respond(request, counter)
        calls = [b for b in content if isinstance(b, ToolUseBlock)]
        for block in content:
            if isinstance(block, ThinkingBlock):
                yield ThinkingDelta(block.thinking)
            if isinstance(block, TextBlock):
                for chunk in re.findall(r"\S+\s*|\s+", block.text):
                    yield TextDelta(chunk)
        for index, call in enumerate(calls):
            yield ToolCallStart(index, call.id, call.name)
            yield ToolInputDelta(index, json.dumps(call.input))
        usage = Usage(
            input_tokens=_estimate_tokens(request), output_tokens=_estimate_output(content)
        )
        stop = "tool_use" if calls else "end_turn"
        yield ModelResponse(content, usage, stop, self._name, f"msg_test_{counter}")

    def _respond(self, request: ModelRequest, counter: int) -> list[ContentBlock]:
        # Asked to reason, it says so first, as reasoning models report a summary.
        reasoning: list[ContentBlock] = [ThinkingBlock(REASONING_SUMMARY, signature="test")]
        if not _reasoning_requested(request):
            reasoning = []
        return reasoning + self._act(request, counter)

    def _act(self, request: ModelRequest, counter: int) -> list[ContentBlock]:
        since_prompt = _since_last_prompt(request.messages)
        called = {b.name for m in since_prompt for b in _blocks(m) if isinstance(b, ToolUseBlock)}
        pending = [
            spec
            for spec in request.tools
            if spec.name != _STRUCTURED_OUTPUT
            and spec.name not in called
            and self._wants(spec.name)
        ]
        if pending:
            return [
                ToolUseBlock(f"call_test_{counter}_{n}", spec.name, schema_value(spec.input_schema))
                for n, spec in enumerate(pending)
            ]
        structured = next((t for t in request.tools if t.name == _STRUCTURED_OUTPUT), None)
        if structured is not None:
            return [self._structured_call(structured, counter)]
        return [TextBlock(self._final_text(since_prompt))]

    def _wants(self, name: str) -> bool:
        return self._call_tools == "all" or name in self._call_tools

    def _structured_call(self, spec: ToolSpec, counter: int) -> ToolUseBlock:
        value = self._custom_args
        if value is None:
            value = schema_value(spec.input_schema)
        return ToolUseBlock(f"call_test_{counter}_output", spec.name, value)

    def _final_text(self, since_prompt: Sequence[ConversationMessage]) -> str:
        if self._custom_text is not None:
            return self._custom_text
        names = {
            b.id: b.name for m in since_prompt for b in _blocks(m) if isinstance(b, ToolUseBlock)
        }
        results = {
            names.get(b.tool_use_id, b.tool_use_id): b.text
            for m in since_prompt
            for b in _blocks(m)
            if isinstance(b, ToolResultBlock)
        }
        return json.dumps(results) if results else NO_TOOL_CALLS_ANSWER


def _reasoning_requested(request: ModelRequest) -> bool:
    thinking = request.thinking
    return request.effort is not None or (thinking is not None and thinking.type == "enabled")


def _blocks(message: ConversationMessage) -> list[Any]:
    content = message.content
    return [] if isinstance(content, str) else list(content)


def _since_last_prompt(messages: Sequence[ConversationMessage]) -> list[ConversationMessage]:
    """The messages after the last user turn that is not only tool results."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if isinstance(message, UserMessage) and not _only_tool_results(message):
            return list(messages[position + 1 :])
    return list(messages)


def _only_tool_results(message: UserMessage) -> bool:
    blocks = _blocks(message)
    return bool(blocks) and all(isinstance(b, ToolResultBlock) for b in blocks)


def _estimate_tokens(request: ModelRequest) -> int:
    size = len(request.system) + sum(len(json.dumps(m.to_dict())) for m in request.messages)
    return max(1, size // 4)


def _estimate_output(content: Sequence[ContentBlock]) -> int:
    return max(1, sum(len(json.dumps(b.to_dict())) for b in content) // 4)


# --------------------------------------------------------------------------- schemas


def schema_value(schema: dict[str, Any]) -> Any:
    """A small value valid for the JSON schema ``schema`` (``$defs`` references resolved)."""
    return _value(schema, schema, depth=0)


def _value(schema: Any, root: dict[str, Any], depth: int) -> Any:
    if not isinstance(schema, dict) or depth > 20:
        return None
    node: dict[str, Any] = schema
    if "$ref" in node:
        return _value(_resolve(str(node["$ref"]), root), root, depth + 1)
    if "const" in node:
        return node["const"]
    if node.get("enum"):
        return node["enum"][0]
    if "default" in node:
        return node["default"]
    for key in ("anyOf", "oneOf"):
        if node.get(key):
            choices = [
                c for c in node[key] if not (isinstance(c, dict) and c.get("type") == "null")
            ]
            return _value((choices or node[key])[0], root, depth + 1)
    if node.get("allOf"):
        merged: dict[str, Any] = {}
        for part in node["allOf"]:
            merged.update(_resolve(part["$ref"], root) if "$ref" in part else part)
        return _value(merged, root, depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return _typed(kind, node, root, depth)


def _typed(kind: Any, node: dict[str, Any], root: dict[str, Any], depth: int) -> Any:
    match kind:
        case "string":
            return _string(node)
        case "integer":
            return int(node.get("minimum", node.get("exclusiveMinimum", -1) + 1))
        case "number":
            return float(node.get("minimum", 0.0))
        case "boolean":
            return False
        case "null":
            return None
        case "array":
            count = int(node.get("minItems", 0))
            return [_value(node.get("items", {}), root, depth + 1) for _ in range(count)]
        case _:  # "object", or no type at all
            return _object(node, root, depth)


def _object(node: dict[str, Any], root: dict[str, Any], depth: int) -> dict[str, Any]:
    properties: dict[str, Any] = node.get("properties") or {}
    return {name: _value(properties[name], root, depth + 1) for name in properties}


def _string(node: dict[str, Any]) -> str:
    match node.get("format"):
        case "date-time":
            return "2024-01-01T00:00:00Z"
        case "date":
            return "2024-01-01"
        case "email":
            return "a@example.com"
        case "uri" | "url":
            return "https://example.com"
        case _:
            return "a" * max(1, int(node.get("minLength", 1)))


def _resolve(reference: str, root: dict[str, Any]) -> dict[str, Any]:
    target: Any = root
    for part in reference.removeprefix("#/").split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    return target if isinstance(target, dict) else {}
