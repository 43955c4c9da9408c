"""``agents.tool``."""

from loopwright.compat._openai_shell import ShellOnApprovalFunctionResult, ShellTool
from loopwright.compat._openai_tools import FunctionTool, function_tool

Tool = FunctionTool

__all__ = ["FunctionTool", "ShellOnApprovalFunctionResult", "ShellTool", "Tool", "function_tool"]
