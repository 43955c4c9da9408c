"""Offline models and test helpers: ``ScriptedModel``, ``FunctionModel`` and step helpers."""

from loopwright.models.scripted import (
    FunctionModel,
    ScriptedModel,
    Step,
    error,
    load_script,
    raw_tool_call,
    text,
    tool_call,
    tool_calls,
)

__all__ = [
    "FunctionModel",
    "ScriptedModel",
    "Step",
    "error",
    "load_script",
    "raw_tool_call",
    "text",
    "tool_call",
    "tool_calls",
]
