"""``agents.tool``."""

from loopwright.compat.openai_agents._impl.shell import ShellOnApprovalFunctionResult, ShellTool
from loopwright.compat.openai_agents._impl.tools import FunctionTool, function_tool

Tool = FunctionTool

__all__ = ["FunctionTool", "ShellOnApprovalFunctionResult", "ShellTool", "Tool", "function_tool"]
