"""One exception tree. Every message says what went wrong and what to do."""

from __future__ import annotations

from typing import Literal

from loopwright.messages import ResultMessage


class LoopwrightError(Exception):
    """Base of every error loopwright raises."""


class ConfigurationError(LoopwrightError):
    """Options, model strings or settings that cannot work as given."""


class SettingsError(ConfigurationError):
    """A settings file that cannot be read; names the file and the problem."""


class ScriptError(LoopwrightError):
    """A scripted model was used in a way its script does not allow."""


ModelErrorKind = Literal[
    "rate_limit",
    "overloaded",
    "server",
    "timeout",
    "connection",
    "context_window_exceeded",
    "invalid_request",
    "authentication",
    "stream",
    "other",
]

RETRYABLE_KINDS: frozenset[str] = frozenset(
    {"rate_limit", "overloaded", "server", "timeout", "connection", "stream"}
)


class ModelError(LoopwrightError):
    """A provider call failed. ``kind`` says how; ``retry_after`` is in seconds."""

    def __init__(
        self,
        message: str,
        *,
        kind: ModelErrorKind = "other",
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ModelErrorKind = kind
        self.status_code = status_code
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS


class ToolInputError(LoopwrightError):
    """Tool arguments that do not fit the tool's schema."""


class ResultError(LoopwrightError):
    """Raised by ``query(raise_on_error=True)`` after an error result was yielded."""

    def __init__(self, result: ResultMessage) -> None:
        # The errors often repeat the subtype ("error_max_turns"): say it once.
        details = [e for e in result.errors if e and e != result.subtype]
        said = f"agent run ended with {result.subtype}"
        super().__init__(f"{said}: {'; '.join(details)}" if details else said)
        self.result = result


class ApprovalError(LoopwrightError):
    """An answer for a call that is not pending approval (answered already, never
    deferred, or the session moved on); no tool was run for it."""
