"""The built-in tools by the names users put in rules, hooks and ``Options(tools=[...])``."""

from __future__ import annotations

from collections.abc import Callable

from loopwright.errors import ConfigurationError
from loopwright.tools.ask_user import AskUserQuestionTool
from loopwright.tools.base import Tool
from loopwright.tools.bash import BashTool
from loopwright.tools.bash_background import BashOutputTool, KillShellTool
from loopwright.tools.edit import EditTool
from loopwright.tools.glob import GlobTool
from loopwright.tools.grep import GrepTool
from loopwright.tools.read import ReadTool
from loopwright.tools.todo import TodoWriteTool
from loopwright.tools.web_fetch import WebFetchTool
from loopwright.tools.web_search import WebSearchTool
from loopwright.tools.write import WriteTool

_FACTORIES: dict[str, Callable[[], Tool]] = {
    "Read": ReadTool,
    "Write": WriteTool,
    "Edit": EditTool,
    "Glob": GlobTool,
    "Grep": GrepTool,
    "Bash": BashTool,
    "BashOutput": BashOutputTool,
    "KillShell": KillShellTool,
    "WebFetch": WebFetchTool,
    "WebSearch": WebSearchTool,
    "TodoWrite": TodoWriteTool,
    "AskUserQuestion": AskUserQuestionTool,
}

# The order the model sees them in.
BUILTIN_TOOL_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def builtin_tool(name: str) -> Tool:
    """A fresh instance of the built-in tool called ``name``."""
    factory = _FACTORIES.get(name)
    if factory is None:
        valid = ", ".join(BUILTIN_TOOL_NAMES)
        raise ConfigurationError(f"unknown built-in tool {name!r}; valid names: {valid}")
    return factory()
