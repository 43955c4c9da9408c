"""Limits every tool input must meet before a permission check or a tool sees it.

A hostile or confused model can send arguments no tool was written for: nesting a
thousand levels deep (Python's recursion limit ends the run in whatever walks it next —
a schema validator, a hook's JSON encoder, a permission check), megabytes of arguments,
or NUL bytes in a path or command (``open()``, ``os.stat()`` and ``execve`` raise on
them). Checking the shape once, here, with an iterative walk that cannot itself recurse,
means nothing downstream has to defend against it, and the model gets an error result
that says what to send instead.

The depth and size limits apply to every tool (built-ins, ``@tool`` functions, MCP
tools). NUL bytes and lone UTF-16 surrogates (which no file name can be encoded with) are
refused in every string of a built-in tool's input: each of those strings ends up as a
path, a pattern, a command, a URL or file text, none of which can hold one.
"""

from __future__ import annotations

from typing import Any

# Deeper than any schema a tool really has; far below Python's recursion limit (1,000),
# so validators, encoders and hooks that recurse stay safe on whatever passes.
MAX_INPUT_DEPTH = 64
# Total characters of all strings and keys: room for a large Write, not for a flood.
MAX_INPUT_CHARS = 10_000_000
# Values of any kind (strings, numbers, lists, dicts and their items).
MAX_INPUT_VALUES = 100_000

# Built-in tools, by the names the model calls them: their strings are paths, patterns,
# commands, URLs or text files, so a NUL byte or a lone surrogate in any of them can only be
# an error. (U+DC80..U+DCFF are allowed: they are how Python spells the bytes of a file
# name that is not UTF-8.)
NUL_FREE_TOOLS = frozenset(
    {
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "Bash",
        "BashOutput",
        "KillShell",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "AskUserQuestion",
        "Agent",
        "Task",
        "Skill",
        "ToolSearch",
        "NotebookEdit",
    }
)


# Where a value sits, built only when an error names it: (parent, key) links from the root.
Where = tuple["Where", str] | None


def input_problem(tool_name: str, input: Any) -> str | None:
    """Why ``input`` cannot be given to ``tool_name`` (an error text for the model), or None."""
    refuse_unusable = tool_name in NUL_FREE_TOOLS
    chars = 0
    values = 0
    # An explicit stack: the walk itself never recurses.
    stack: list[tuple[Any, int, Where]] = [(input, 0, None)]
    while stack:
        value, depth, where = stack.pop()
        values += 1
        if values > MAX_INPUT_VALUES:
            return _too_large(tool_name, f"more than {MAX_INPUT_VALUES:,} values")
        if depth > MAX_INPUT_DEPTH:
            return _too_deep(tool_name, where)
        if isinstance(value, str):
            chars += len(value)
            if refuse_unusable and (bad := _unusable_char(value)) is not None:
                return _unusable_message(tool_name, _render(where), bad)
        elif isinstance(value, dict):
            for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
                text_key = str(key)  # pyright: ignore[reportUnknownArgumentType]
                chars += len(text_key)
                if refuse_unusable and (bad := _unusable_char(text_key)) is not None:
                    return _unusable_message(tool_name, _render((where, repr(text_key))), bad)
                stack.append((item, depth + 1, (where, text_key)))
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
                stack.append((item, depth + 1, (where, str(index))))
        if chars > MAX_INPUT_CHARS:
            return _too_large(tool_name, f"more than {MAX_INPUT_CHARS:,} characters")
    return None


def _unusable_char(text: str) -> str | None:
    """The first NUL or lone surrogate (outside the file-name byte escapes) in ``text``."""
    if "\x00" in text:
        return "\x00"
    if text.isascii():  # a flag check: the common case costs nothing more
        return None
    try:
        # Fails exactly on the surrogates that no file name can be encoded with.
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        return text[exc.start]
    return None


def _render(where: Where) -> str:
    parts: list[str] = []
    while where is not None:
        where, key = where
        parts.append(key)
    return "/".join(reversed(parts))


def _too_deep(tool_name: str, where: Where) -> str:
    top = _render(where).split("/")[0]
    return (
        f"Error: the arguments for {tool_name} are nested more than {MAX_INPUT_DEPTH} levels "
        f"deep (under {top!r}). No tool takes input that deep; send the arguments again as a "
        "flat JSON object matching the tool's schema."
    )


def raw_input_problem(tool_name: str, raw: str) -> str | None:
    """Why unparsed argument text was refused, when the cause was depth or size, else None.

    A provider that could not decode the model's JSON (Python's decoder gives up near
    1,000 levels) keeps the raw text; this tells the model the real reason.
    """
    if len(raw) > MAX_INPUT_CHARS:
        return _too_large(tool_name, f"more than {MAX_INPUT_CHARS:,} characters")
    depth = deepest = 0
    in_string = escaped = False
    for char in raw:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    if deepest <= MAX_INPUT_DEPTH:
        return None
    return (
        f"Error: the arguments for {tool_name} are nested more than {MAX_INPUT_DEPTH} levels "
        "deep and were not decoded. Send the arguments again as a flat JSON object matching "
        "the tool's schema."
    )


def _unusable_message(tool_name: str, where: str, char: str) -> str:
    if char == "\x00":
        what, kind = "a NUL byte (\\u0000)", "NUL bytes"
    else:
        what, kind = f"a lone UTF-16 surrogate (\\u{ord(char):04x})", "lone surrogates"
    return (
        f"Error: the arguments for {tool_name} contain {what} at {where or 'input'}. Paths, "
        f"patterns, commands and file text cannot hold {kind}; remove it and send the call "
        "again."
    )


def _too_large(tool_name: str, what: str) -> str:
    return (
        f"Error: the arguments for {tool_name} are too large ({what}). Send smaller "
        "arguments: split the work into several calls, or write large content in parts."
    )
