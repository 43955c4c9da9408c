"""Checks that ``Options`` and ``AgentDefinition`` run when they are built.

A wrong type in a permission field is a security bug, not a typo: ``disallowed_tools="Bash"``
was read one character at a time (rules "B", "a", "s", "h") and left Bash enabled, and a
mode such as ``"yolo"`` was accepted and behaved like the default. So every field is checked
at construction and a wrong one raises :class:`OptionsError` naming the field and saying
what to pass. A single string where a list is expected is refused, never taken as a
one-element list: the fix is one pair of brackets, and guessing would hide the same
mistake in places where a guess is wrong (``tools="Read"``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from loopwright.errors import ConfigurationError
from loopwright.ids import check_id
from loopwright.models.base import Effort
from loopwright.types import PERMISSION_MODES

if TYPE_CHECKING:
    from loopwright.options import AgentDefinition, Options

SETTING_SOURCES = ("user", "project", "local")
EFFORTS: tuple[str, ...] = get_args(Effort)


class OptionsError(ConfigurationError, TypeError):
    """An Options or AgentDefinition field with a wrong type or value.

    Also a ``TypeError``, which is what Python raises for a wrong argument type.
    """


def check_permission_mode(value: object, field: str = "permission_mode") -> None:
    """Refuse anything but the five modes, naming the valid ones."""
    if value not in PERMISSION_MODES:
        valid = ", ".join(repr(m) for m in PERMISSION_MODES)
        raise OptionsError(f"{field}={value!r} is not a permission mode; use one of {valid}")


def validate_options(options: Options) -> None:
    """Raise OptionsError for the first field that cannot work as given."""
    _string_list(options.allowed_tools, "allowed_tools", "rules", "['Read', 'Bash(npm test *)']")
    _string_list(options.disallowed_tools, "disallowed_tools", "rules", "['Bash']")
    _string_list(options.defer_tools, "defer_tools", "rules", "['Bash(git push *)']")
    _tools(options.tools)
    _paths(options.add_dirs)
    _setting_sources(options.setting_sources)
    if options.skills is not None and options.skills != "all":
        _string_list(options.skills, "skills", "skill names", "['review'] or 'all'")
    if options.permission_mode is not None:
        check_permission_mode(options.permission_mode)
    if options.effort is not None and options.effort not in EFFORTS:
        raise OptionsError(f"effort={options.effort!r} is not one of {', '.join(EFFORTS)}")
    _limits(options)
    _kinds(options)


def validate_agent_definition(agent: AgentDefinition) -> None:
    """Raise OptionsError for a subagent definition that cannot work as given."""
    _text(agent.description, "AgentDefinition.description")
    _text(agent.prompt, "AgentDefinition.prompt")
    if agent.tools is not None:
        _string_list(agent.tools, "AgentDefinition.tools", "tool names", "['Read', 'Grep']")
    if agent.permission_mode is not None:
        check_permission_mode(agent.permission_mode, "AgentDefinition.permission_mode")
    if agent.effort is not None and agent.effort not in EFFORTS:
        raise OptionsError(
            f"AgentDefinition.effort={agent.effort!r} is not one of {', '.join(EFFORTS)}"
        )
    _whole(agent.max_turns, "AgentDefinition.max_turns", minimum=0, optional=True)
    _whole(agent.max_retries, "AgentDefinition.max_retries", minimum=0)


# --------------------------------------------------------------------------- lists


def _string_list(value: object, field: str, what: str, example: str) -> None:
    if isinstance(value, str | bytes):
        raise OptionsError(
            f"{field} must be a list of {what}, not the string {value!r} (a string would be "
            f"read one character at a time); write {field}=[{value!r}]"
        )
    if not isinstance(value, Sequence | set | frozenset):
        raise OptionsError(
            f"{field} must be a list of {what}, got {type(value).__name__}; e.g. {field}={example}"
        )
    for item in value:  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(item, str) or not item.strip():
            raise OptionsError(
                f"{field} must hold non-empty strings, got {item!r}; e.g. {field}={example}"
            )


def _tools(tools: object) -> None:
    if tools is None:
        return
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        shown = repr(tools) if isinstance(tools, str | bytes) else type(tools).__name__
        raise OptionsError(
            f"tools must be a list of built-in tool names and Tool objects, not {shown}; "
            "write e.g. tools=['Read', 'Grep'] (tools=[] for none, None for every built-in)"
        )
    for item in tools:  # pyright: ignore[reportUnknownVariableType]
        if isinstance(item, str):
            if not item.strip():
                raise OptionsError("tools must not hold an empty name; remove it")
        elif not all(hasattr(item, a) for a in ("name", "input_schema", "call")):  # pyright: ignore[reportUnknownArgumentType]
            raise OptionsError(
                f"tools holds {item!r}, which is neither a tool name nor a Tool (a @tool "
                "function, an MCP tool); pass names such as 'Read' or decorate it with @tool"
            )


def _paths(add_dirs: object) -> None:
    if isinstance(add_dirs, str | bytes | Path) or not isinstance(add_dirs, Sequence):
        raise OptionsError(
            f"add_dirs must be a list of directories, not {add_dirs!r}; write "
            f"add_dirs=[{str(add_dirs)!r}]"
        )
    for item in add_dirs:  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(item, str | Path) or not str(item).strip():  # pyright: ignore[reportUnknownArgumentType]
            raise OptionsError(f"add_dirs must hold directory paths, got {item!r}")


def _setting_sources(sources: object) -> None:
    if sources is None:
        return
    example = "['project'] ([] loads nothing from disk, None loads all three)"
    _string_list(sources, "setting_sources", "setting sources", example)
    for source in sources:  # pyright: ignore[reportGeneralTypeIssues, reportUnknownVariableType]
        if source not in SETTING_SOURCES:
            raise OptionsError(
                f"setting_sources holds {source!r}, which is not a setting source; use "
                f"{', '.join(repr(s) for s in SETTING_SOURCES)}"
            )


# --------------------------------------------------------------------------- numbers


def _limits(options: Options) -> None:
    _whole(options.max_turns, "max_turns", minimum=0, optional=True)
    _whole(options.max_tokens, "max_tokens", minimum=1, optional=True)
    _whole(options.task_budget, "task_budget", minimum=1, optional=True)
    _whole(options.context_window, "context_window", minimum=1, optional=True)
    _whole(options.max_retries, "max_retries", minimum=0)
    _number(options.max_budget_usd, "max_budget_usd", "a cost in USD, 0 or more", optional=True)
    _positive(options.tool_timeout_seconds, "tool_timeout_seconds")
    _positive(options.mcp_connect_timeout, "mcp_connect_timeout")
    threshold = options.compaction_threshold
    _number(threshold, "compaction_threshold", "a share of the context window")
    if not 0 < threshold <= 1:
        raise OptionsError(
            f"compaction_threshold={threshold!r} must be a share of the context window "
            "above 0 and at most 1, e.g. 0.8"
        )
    search = options.tool_search
    if not isinstance(search, bool):
        _number(search, "tool_search", "True, False or a share of the context window")
        if not 0 <= search <= 1:
            raise OptionsError(f"tool_search={search!r} must be True, False or between 0 and 1")


def _whole(value: object, field: str, *, minimum: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        none = " or None" if optional else ""
        raise OptionsError(
            f"{field} must be a whole number of at least {minimum}{none}, got {value!r}"
        )
    if value < minimum:
        raise OptionsError(f"{field}={value} must be at least {minimum}; pass {minimum} or more")


def _number(value: object, field: str, what: str, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise OptionsError(f"{field} must be {what}, got {value!r}")
    if value < 0:
        raise OptionsError(f"{field}={value!r} must not be negative; pass {what}")


def _positive(value: object, field: str) -> None:
    _number(value, field, "a number of seconds above 0")
    assert isinstance(value, int | float)
    if value <= 0:
        raise OptionsError(f"{field}={value!r} must be a number of seconds above 0, e.g. 30")


# --------------------------------------------------------------------------- kinds

_FLAGS = (
    "include_hook_events",
    "trust_project",
    "strict_settings",
    "project_settings",
    "include_partial_messages",
    "raise_on_error",
    "persist_session",
    "continue_conversation",
    "fork_session",
)
_OPTIONAL_TEXT = (
    "system_prompt",
    "append_system_prompt",
    "session_id",
    "resume",
    "resume_at",
)
_CALLBACKS = ("can_use_tool", "ask_user")


def _kinds(options: Options) -> None:
    for name in _FLAGS:
        value = getattr(options, name)
        if not isinstance(value, bool):
            raise OptionsError(f"{name} must be True or False, got {value!r}")
    for name in _OPTIONAL_TEXT:
        value = getattr(options, name)
        if value is not None and not isinstance(value, str):
            raise OptionsError(f"{name} must be a string or None, got {type(value).__name__}")
    for name in ("session_id", "resume"):  # both become file names
        value = getattr(options, name)
        if value is not None:
            check_id(value, name)
    for name in _CALLBACKS:
        value = getattr(options, name)
        if value is not None and not callable(value):
            raise OptionsError(f"{name} must be a function (sync or async) or None, got {value!r}")
    if options.cwd is not None and not isinstance(options.cwd, str | Path):
        raise OptionsError(f"cwd must be a path (str or Path) or None, got {options.cwd!r}")
    _mapping(options.env, "env", "{'NAME': 'value'}", values=str)
    _mapping(options.mcp_servers, "mcp_servers", "{'github': {...}}")
    if options.hooks is not None:
        _hooks(options.hooks)
    if options.agents is not None:
        _mapping(options.agents, "agents", "{'reviewer': AgentDefinition(...)}")
        for name, agent in options.agents.items():
            # Checked by shape: AgentDefinition validates itself when it is built.
            if not (hasattr(agent, "prompt") and hasattr(agent, "description")):
                raise OptionsError(
                    f"agents[{name!r}] must be an AgentDefinition, got {type(agent).__name__}"
                )


def _hooks(hooks: object) -> None:
    # Deferred: the hooks module loads only for options that have hooks (start-up time).
    from loopwright.hooks.runner import HOOK_EVENTS

    example = "{'PreToolUse': [HookMatcher('Bash', [check_command])]}"
    _mapping(hooks, "hooks", example)
    assert isinstance(hooks, Mapping)
    for event, entries in hooks.items():  # pyright: ignore[reportUnknownVariableType]
        if event not in HOOK_EVENTS:
            raise OptionsError(
                f"hooks has an unknown event {event!r}; use one of {', '.join(HOOK_EVENTS)}"
            )
        if isinstance(entries, str | bytes | Mapping) or not isinstance(entries, Sequence):
            raise OptionsError(
                f"hooks[{event!r}] must be a list of HookMatcher, got "
                f"{type(entries).__name__}; e.g. hooks={example}"  # pyright: ignore[reportUnknownArgumentType]
            )
        for entry in entries:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(entry, Mapping) or hasattr(entry, "hooks"):  # pyright: ignore[reportUnknownArgumentType]
                continue
            raise OptionsError(
                f"hooks[{event!r}] holds {entry!r}, not a HookMatcher; wrap callbacks in one, "
                f"e.g. hooks={{{event!r}: [HookMatcher(None, [your_callback])]}}"
            )


def _mapping(value: object, field: str, example: str, *, values: type | None = None) -> None:
    if not isinstance(value, Mapping):
        raise OptionsError(f"{field} must be a dict, got {type(value).__name__}; e.g. {example}")
    for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(key, str):
            raise OptionsError(f"{field} keys must be strings, got {key!r}")
        if values is not None and not isinstance(item, values):
            raise OptionsError(
                f"{field}[{key!r}] must be a {values.__name__}, got {type(item).__name__}"  # pyright: ignore[reportUnknownArgumentType]
            )


def _text(value: object, field: str) -> None:
    if not isinstance(value, str):
        raise OptionsError(f"{field} must be a string, got {type(value).__name__}")
