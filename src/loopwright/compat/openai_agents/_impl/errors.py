"""The exception tree of the OpenAI Agents SDK layer."""

from __future__ import annotations

from typing import Any

from loopwright.errors import LoopwrightError


class AgentsException(LoopwrightError):
    """Base of the errors this layer raises, as in the OpenAI Agents SDK."""

    run_data: Any = None


class MaxTurnsExceeded(AgentsException):
    """The run needed more model calls than ``max_turns`` allows."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.result = result


class ModelBehaviorError(AgentsException):
    """The model did something the run cannot accept, e.g. no valid ``output_type`` value."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UserError(AgentsException):
    """The code asked for something this layer cannot do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
