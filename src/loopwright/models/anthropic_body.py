"""The Anthropic Messages request body as the provider builds it, for code outside the
providers (tests, fake servers, session repair) that needs to see it.

The provider modules' private helpers (``loopwright.models._*``) stay private to
``loopwright.models``; this module names the few that are needed outside. The
context-overflow wording is in ``overflow.py``.
"""

from __future__ import annotations

from loopwright.models._anthropic_wire import TASK_BUDGET_BETA
from loopwright.models._anthropic_wire import build_body as anthropic_body
from loopwright.models._anthropic_wire import convert_messages as anthropic_messages

__all__ = ["TASK_BUDGET_BETA", "anthropic_body", "anthropic_messages"]
