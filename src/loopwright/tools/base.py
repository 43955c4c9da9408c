"""What a tool is, what it gets when called, and the ``@tool`` decorator, in one import.

Built-ins, ``@tool`` functions, MCP tools and the subagent tool all satisfy the same
:class:`Tool` protocol, so the executor treats them alike.

The definitions live in :mod:`.interface`, :mod:`.context`, :mod:`.results`,
:mod:`.function_tool` and :mod:`.gate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loopwright.lazy_exports import lazy_exports
from loopwright.tools.context import FileRecord as FileRecord
from loopwright.tools.context import PathGuard as PathGuard
from loopwright.tools.context import SessionState as SessionState
from loopwright.tools.context import ToolContext as ToolContext
from loopwright.tools.context import ToolServices as ToolServices
from loopwright.tools.gate import GateDecision as GateDecision
from loopwright.tools.gate import GateReport as GateReport
from loopwright.tools.gate import OpenGate as OpenGate
from loopwright.tools.gate import ToolGate as ToolGate
from loopwright.tools.interface import Closeable as Closeable
from loopwright.tools.interface import ForeignTool as ForeignTool
from loopwright.tools.interface import MinimalTool as MinimalTool
from loopwright.tools.interface import Tool as Tool
from loopwright.tools.interface import ToolBase as ToolBase
from loopwright.tools.interface import ToolWrapper as ToolWrapper
from loopwright.tools.interface import adopt_tool as adopt_tool
from loopwright.tools.interface import idempotent_of as idempotent_of
from loopwright.tools.interface import timeout_of as timeout_of
from loopwright.tools.results import LoopRequest as LoopRequest
from loopwright.tools.results import ToolResult as ToolResult

# ``@tool`` and its helpers load on first use (start-up: the CLI defines no function tools).
_FUNCTION_TOOL_NAMES = ("FunctionTool", "Handler", "run_blocking", "to_tool_result", "tool")

if TYPE_CHECKING:
    from loopwright.tools.function_tool import FunctionTool as FunctionTool
    from loopwright.tools.function_tool import Handler as Handler
    from loopwright.tools.function_tool import run_blocking as run_blocking
    from loopwright.tools.function_tool import to_tool_result as to_tool_result
    from loopwright.tools.function_tool import tool as tool


__getattr__ = lazy_exports(
    "loopwright.tools.base", dict.fromkeys(_FUNCTION_TOOL_NAMES, "loopwright.tools.function_tool")
)
