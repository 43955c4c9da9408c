"""Model strings and tool names turned into Model and Tool objects.

Used by assembly, and again whenever an Agent is remade: a handoff, a subagent with its
own model, ``Client.set_model``.
"""

from __future__ import annotations

from collections.abc import Sequence

from loopwright.errors import ConfigurationError
from loopwright.models.base import MinimalModel, Model, adopt_model
from loopwright.options import Options
from loopwright.tools.base import MinimalTool, Tool, adopt_tool

# Tools built from the session's own configuration rather than from the built-in registry.
EXTENSION_TOOL_NAMES = frozenset({"Agent", "Skill"})


def with_retries(model: Model, options: Options) -> Model:
    """Every model call goes through the retry wrapper (also scripted ones: their error
    steps exercise the same retries users get from real providers)."""
    from loopwright.models.retry import RetryingModel

    fallback = resolve_model(options.fallback_model) if options.fallback_model else None
    return RetryingModel(model, max_retries=options.max_retries, fallback=fallback)


def resolve_model(spec: str | MinimalModel | None) -> Model:
    """A model string resolved to its provider; a model object as is, or adopted when it
    is a user's object without the optional members (see ``adopt_model``)."""
    if spec is not None and not isinstance(spec, str):
        return adopt_model(spec)
    from loopwright.models.registry import resolve_model as resolve_from_registry

    return resolve_from_registry(spec)


def resolve_tools(
    requested: Sequence[str | MinimalTool] | None, disallowed: Sequence[str]
) -> dict[str, Tool]:
    """Exactly the tools the model will see, by name, in the order given (a user's tool
    object adopted when it lacks the optional members)."""
    entries: Sequence[str | MinimalTool] = list(requested) if requested is not None else []
    if requested is None:
        from loopwright.tools.builtins import BUILTIN_TOOL_NAMES

        entries = list(BUILTIN_TOOL_NAMES)
    removed = {name for name in disallowed if "(" not in name}
    tools: dict[str, Tool] = {}
    for entry in entries:
        if isinstance(entry, str) and entry in EXTENSION_TOOL_NAMES:
            continue  # made later from the session's agents and skills
        tool = _builtin(entry) if isinstance(entry, str) else adopt_tool(entry)
        if tool.name in removed:
            continue
        if tool.name in tools:
            raise ConfigurationError(
                f"two tools are named {tool.name!r}; tool names must be unique — rename one"
            )
        tools[tool.name] = tool
    return tools


def _builtin(name: str) -> Tool:
    # Imported on demand: sessions made only of @tool functions never load the built-ins.
    from loopwright.tools.builtins import builtin_tool

    return builtin_tool(name)
