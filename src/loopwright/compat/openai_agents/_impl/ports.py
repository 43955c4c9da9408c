"""The narrow views of a run that its parts take, instead of the whole run.

A tool that may wait for approval takes an ``ApprovalSource``; a user's ``Model`` takes the
``SdkToolSource`` that names a request's tools as that SDK's objects; a handoff filter takes
the ``PriorHistory`` that says where this run's conversation starts. The run satisfies them
structurally, so none of these modules imports the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from loopwright.messages import ConversationMessage, ToolUseBlock
from loopwright.models.base import ToolSpec


class AgentLike(Protocol):
    """What the Runner needs of an agent it is given: ``Agent`` or an object of that SDK's
    shape (the rest is read from it where it is used)."""

    @property
    def name(self) -> str: ...


class ApprovalSource(Protocol):
    async def approval(self, agent: Any, call: ToolUseBlock, name: str) -> str | None:
        """None when a call that waited may run, else the message the model gets."""
        ...


class SdkToolSource(Protocol):
    def sdk_tools(self, agent: Any, specs: Sequence[ToolSpec]) -> tuple[list[Any], list[Any]]:
        """The tools and handoffs of a model request as that SDK's objects."""
        ...


class PriorHistory(Protocol):
    @property
    def prior(self) -> Sequence[ConversationMessage]:
        """The conversation the run was given before its prompt."""
        ...
