"""Offline models: a script of responses, or a function that answers each request.

``ScriptedModel`` plays the model's side of a conversation from a list of steps. It
streams like a real provider (so partial messages work), fails loudly when called past
the end of its script, and ``assert_complete()`` fails when steps were left over.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loopwright.errors import ModelError, ModelErrorKind, ScriptError
from loopwright.messages import ContentBlock, TextBlock, ThinkingBlock, ToolUseBlock, Usage
from loopwright.models._tool_arguments import decode_arguments
from loopwright.models.base import (
    ModelBase,
    ModelEvent,
    ModelRequest,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolInputDelta,
)

DEFAULT_USAGE = Usage(input_tokens=10, output_tokens=5)


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    name: str
    input: dict[str, Any]
    id: str | None = None
    raw_json: str | None = None  # sent verbatim instead of ``input``: for malformed arguments


@dataclass(frozen=True, slots=True)
class Step:
    """One model response: text and/or tool calls, or a provider error."""

    text: str = ""
    calls: tuple[ScriptedCall, ...] = ()
    thinking: str | None = None
    usage: Usage = DEFAULT_USAGE
    stop_reason: str | None = None
    error: ModelError | None = None

    def with_(self, **changes: Any) -> Step:
        """A copy with ``usage``, ``stop_reason``, ``thinking`` or ``text`` changed."""
        return dataclasses.replace(self, **changes)


def text(
    content: str,
    *,
    thinking: str | None = None,
    usage: Usage = DEFAULT_USAGE,
    stop_reason: str | None = None,
) -> Step:
    return Step(text=content, thinking=thinking, usage=usage, stop_reason=stop_reason)


def tool_call(name: str, /, **input: Any) -> Step:
    return Step(calls=(ScriptedCall(name, input),))


def tool_calls(calls: Sequence[tuple[str, dict[str, Any]]], *, text: str = "") -> Step:
    return Step(text=text, calls=tuple(ScriptedCall(name, dict(args)) for name, args in calls))


def raw_tool_call(name: str, raw_json: str) -> Step:
    """A tool call whose arguments are exactly ``raw_json`` (which may be invalid JSON)."""
    return Step(calls=(ScriptedCall(name, {}, raw_json=raw_json),))


def error(
    message: str = "scripted provider error",
    *,
    kind: ModelErrorKind = "server",
    status_code: int | None = 500,
    retry_after: float | None = 0.0,
) -> Step:
    """A provider error. Retryable kinds are retried by the loop; ``retry_after`` (seconds,
    default 0 so offline tests stay fast) is the Retry-After the "server" asks for."""
    return Step(
        error=ModelError(message, kind=kind, status_code=status_code, retry_after=retry_after)
    )


StepSource = Step | ModelResponse


class _StreamingModel(ModelBase):
    """Shared streaming of a Step as provider-like deltas."""

    _name: str
    requests: list[ModelRequest]

    @property
    def name(self) -> str:
        return self._name

    async def _emit(self, step: StepSource, counter: int) -> AsyncIterator[ModelEvent]:
        if isinstance(step, ModelResponse):
            yield step
            return
        if step.error is not None:
            raise step.error
        content: list[ContentBlock] = []
        if step.thinking:
            yield ThinkingDelta(step.thinking)
            content.append(ThinkingBlock(step.thinking, signature="scripted"))
        if step.text:
            for chunk in re.findall(r"\S+\s*|\s+", step.text):
                yield TextDelta(chunk)
            content.append(TextBlock(step.text))
        for index, call in enumerate(step.calls):
            call_id = call.id or f"toolu_scripted_{counter}_{index}"
            yield ToolCallStart(index, call_id, call.name)
            payload = call.raw_json if call.raw_json is not None else json.dumps(call.input)
            yield ToolInputDelta(index, payload)
            if call.raw_json is not None:
                content.append(_parse_raw_call(call_id, call.name, call.raw_json))
            else:
                content.append(ToolUseBlock(call_id, call.name, dict(call.input)))
        stop = step.stop_reason or ("tool_use" if step.calls else "end_turn")
        yield ModelResponse(content, step.usage, stop, self._name, f"msg_scripted_{counter}")


def _parse_raw_call(call_id: str, name: str, raw: str) -> ToolUseBlock:
    parsed = decode_arguments(raw)
    if parsed is None:
        return ToolUseBlock(call_id, name, {}, raw_input=raw)
    return ToolUseBlock(call_id, name, parsed)


class ScriptedModel(_StreamingModel):
    """Answers each request with the next step of the script."""

    def __init__(self, steps: Sequence[Step], *, name: str = "scripted") -> None:
        self._steps = list(steps)
        self._position = 0
        self._name = name
        self.requests = []
        self.overrun: ScriptError | None = None

    @property
    def remaining(self) -> int:
        return len(self._steps) - self._position

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        if self._position >= len(self._steps):
            last = _describe_last(request)
            self.overrun = ScriptError(
                f"ScriptedModel was called {len(self.requests)} times but its script has "
                f"{len(self._steps)} steps; the unexpected call came after: {last}. "
                "Add a step to the script or make the run stop earlier."
            )
            raise self.overrun
        step = _substitute(self._steps[self._position], request)
        self._position += 1
        return self._emit(step, self._position)

    def assert_complete(self) -> None:
        if self.overrun is not None:
            raise self.overrun
        if self._position < len(self._steps):
            left = self._steps[self._position :]
            raise ScriptError(
                f"ScriptedModel has {len(left)} unused step(s) of {len(self._steps)}; "
                f"the next unused one is {left[0]!r}"
            )

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedModel:
        return cls(load_script(path), name="scripted")


ModelFunction = Callable[[ModelRequest], "StepSource | Awaitable[StepSource]"]


class FunctionModel(_StreamingModel):
    """Answers each request with ``fn(request)`` (a Step or a ModelResponse, sync or async)."""

    def __init__(self, fn: ModelFunction, *, name: str = "function") -> None:
        self._fn = fn
        self._name = name
        self.requests = []

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        return self._answer(request, len(self.requests))

    async def _answer(self, request: ModelRequest, counter: int) -> AsyncIterator[ModelEvent]:
        produced = self._fn(request)
        step = await produced if inspect.isawaitable(produced) else produced
        async for event in self._emit(step, counter):
            yield event


def _describe_last(request: ModelRequest) -> str:
    if not request.messages:
        return "no messages"
    last = request.messages[-1]
    summary = json.dumps(last.to_dict().get("content"), default=str)
    return summary if len(summary) < 300 else summary[:300] + "…"


# --------------------------------------------------------------------------- files


def _substitute(step: Step, request: ModelRequest) -> Step:
    """Replace ``{{cwd}}`` in file-loaded scripts with the session's working directory."""
    cwd = request.metadata.get("cwd")
    if not cwd or "{{cwd}}" not in repr(step):
        return step
    swap: Callable[[Any], Any] = lambda v: _swap(v, "{{cwd}}", str(cwd))  # noqa: E731
    calls = tuple(
        dataclasses.replace(c, input=swap(c.input), raw_json=swap(c.raw_json)) for c in step.calls
    )
    return dataclasses.replace(step, text=swap(step.text), calls=calls)


def _swap(value: Any, marker: str, replacement: str) -> Any:
    if isinstance(value, str):
        return value.replace(marker, replacement)
    if isinstance(value, dict):
        return {k: _swap(v, marker, replacement) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, marker, replacement) for v in value]
    return value


def load_script(path: str | Path) -> list[Step]:
    """Read a YAML or JSON script: a list of ``{text|tool_call|tool_calls|error: ...}``."""
    import yaml  # local: YAML is only needed when a script file is used

    file = Path(path)
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScriptError(f"cannot read model script {file}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise ScriptError(f"model script {file} is not valid YAML/JSON: {exc}") from exc
    if isinstance(raw, dict) and "steps" in raw:
        raw = raw["steps"]
    if not isinstance(raw, list):
        raise ScriptError(f"model script {file} must be a list of steps (or {{steps: [...]}})")
    return [_step_from_data(item, file, n) for n, item in enumerate(raw, start=1)]


def _step_from_data(item: Any, file: Path, number: int) -> Step:
    where = f"{file}, step {number}"
    if not isinstance(item, dict):
        raise ScriptError(f"{where}: each step must be a mapping, got {item!r}")
    usage = Usage.from_dict(item.get("usage") or {}) if "usage" in item else DEFAULT_USAGE
    stop = item.get("stop_reason")
    if "error" in item:
        spec = item["error"] if isinstance(item["error"], dict) else {"message": item["error"]}
        return error(
            str(spec.get("message", "scripted provider error")),
            kind=spec.get("kind", "server"),
            status_code=spec.get("status_code", 500),
            retry_after=spec.get("retry_after", 0.0),
        )
    calls_data: list[Any] = []
    if "tool_call" in item:
        calls_data = [item["tool_call"]]
    elif "tool_calls" in item:
        calls_data = list(item["tool_calls"])
    calls: list[ScriptedCall] = []
    for call in calls_data:
        if not isinstance(call, dict) or "name" not in call:
            raise ScriptError(f"{where}: a tool call needs a name and an input mapping")
        calls.append(ScriptedCall(str(call["name"]), dict(call.get("input") or {})))
    text_value = item.get("text", "")
    if not calls and not text_value and "thinking" not in item:
        raise ScriptError(f"{where}: a step needs text, tool_call, tool_calls or error")
    return Step(
        text=str(text_value),
        calls=tuple(calls),
        thinking=item.get("thinking"),
        usage=usage,
        stop_reason=stop,
        error=None,
    )
