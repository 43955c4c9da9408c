"""Offline models and test helpers: ``ScriptedModel``, ``FunctionModel``, ``TestModel``, step
helpers, fake provider servers (import ``FakeAnthropicServer`` / ``FakeOpenAIServer`` from
their modules or here) and the session-store conformance suite."""

from typing import TYPE_CHECKING

from loopwright.lazy_exports import lazy_exports
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
from loopwright.models.test_model import TestModel

if TYPE_CHECKING:
    from loopwright.testing.fake_anthropic import FakeAnthropicServer
    from loopwright.testing.fake_openai import FakeOpenAIServer
    from loopwright.testing.store_conformance import run_store_conformance

_LAZY = {
    "FakeAnthropicServer": "loopwright.testing.fake_anthropic",
    "FakeOpenAIServer": "loopwright.testing.fake_openai",
    "run_store_conformance": "loopwright.testing.store_conformance",
}


__getattr__ = lazy_exports("loopwright.testing", _LAZY)


__all__ = [
    "FakeAnthropicServer",
    "FakeOpenAIServer",
    "FunctionModel",
    "ScriptedModel",
    "Step",
    "TestModel",
    "error",
    "load_script",
    "raw_tool_call",
    "run_store_conformance",
    "text",
    "tool_call",
    "tool_calls",
]
