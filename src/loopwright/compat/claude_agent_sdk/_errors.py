"""The reference SDK's exception names. loopwright has no CLI subprocess, so most of them are
never raised; they exist so ``except`` clauses written for the SDK keep working."""

from __future__ import annotations

from loopwright.errors import LoopwrightError

ClaudeSDKError = LoopwrightError


class CLIConnectionError(ClaudeSDKError):
    """Exists so ``except CLIConnectionError`` still compiles; there is no CLI to lose."""


class CLINotFoundError(CLIConnectionError):
    """Never raised: loopwright needs no Claude Code CLI."""


class ProcessError(ClaudeSDKError):
    """Never raised: there is no subprocess."""

    def __init__(self, message: str, exit_code: int | None = None, stderr: str | None = None):
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class CLIJSONDecodeError(ClaudeSDKError):
    """Never raised: messages are Python objects, not JSON lines."""

    def __init__(self, line: str, original_error: Exception):
        super().__init__(f"cannot decode {line[:100]!r}: {original_error}")
        self.line = line
        self.original_error = original_error
