"""Spend: what a session has used — tokens, cost, API time, turns, permission denials.

A subagent gets a child Spend: whatever it spends is added to its parent's (and so on up
the chain), so a parent's result and budget always include its subagents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loopwright.cost import add_costs, cost_of, price_of
from loopwright.errors import ConfigurationError
from loopwright.messages import Usage


@dataclass(slots=True)
class Totals:
    """Tokens, cost and API time, in all and per model."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    api_seconds: float = 0.0
    model_usage: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])

    def add(self, model: str, usage: Usage, cost: float | None) -> None:
        """Count one response's usage and its cost (``cost_of``; None when unpriced)."""
        self.usage = self.usage + usage
        # One unpriced model makes the total unknown: None, never a guess.
        self.cost_usd = add_costs(self.cost_usd, cost)
        entry = self.model_usage.setdefault(
            model,
            {
                "input_tokens": 0,
                "output_tokens": 0,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
                "cost_usd": 0.0,
            },
        )
        for key, value in usage.to_dict().items():
            entry[key] += value
        entry["cost_usd"] = add_costs(entry["cost_usd"], cost)


@dataclass(slots=True)
class Spend:
    """The session's totals, the run in progress (what its ResultMessage reports), and the
    run's permission denials."""

    total: Totals = field(default_factory=Totals)
    run: Totals = field(default_factory=Totals)
    denials: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    turns: int = 0  # tool-use turns over the session's life
    parent: Spend | None = None

    def child(self) -> Spend:
        return Spend(parent=self)

    def start_run(self) -> None:
        """A run's ResultMessage counts only itself."""
        self.run = Totals()
        self.denials = []

    def _chain(self) -> list[Spend]:
        chain: list[Spend] = []
        spend: Spend | None = self
        while spend is not None:
            chain.append(spend)
            spend = spend.parent
        return chain

    def add_usage(self, model: str, usage: Usage) -> None:
        cost = cost_of(model, usage)
        for spend in self._chain():
            spend.total.add(model, usage, cost)
            spend.run.add(model, usage, cost)

    def add_api_seconds(self, seconds: float) -> None:
        for spend in self._chain():
            spend.total.api_seconds += seconds
            spend.run.api_seconds += seconds

    def add_denials(self, denials: list[dict[str, Any]]) -> None:
        for spend in self._chain():
            spend.denials.extend(denials)

    def add_turn(self) -> None:
        self.turns += 1


def require_price_for_budget(
    max_budget_usd: float | None, task_budget: int | None, model_name: str
) -> None:
    """A dollar budget on a model without a known price would never stop anything (its
    cost is unknown, not zero): refuse to start, unless a token budget (``task_budget``)
    is there to hold the run instead."""
    if max_budget_usd is None or task_budget is not None or price_of(model_name) is not None:
        return
    raise ConfigurationError(
        f"max_budget_usd={max_budget_usd:g} cannot be enforced: no price is known for model "
        f"{model_name!r}, so its cost is unknown. Give its price in US dollars per million "
        "tokens — in the model string (e.g. openai-chat:"
        f"{model_name}?base_url=…&input_price=0.3&output_price=1.2) or with "
        f"loopwright.register_price({model_name!r}, ModelPrice(input=…, output=…, "
        "cache_read=…, cache_write=…)) — or cap tokens instead with task_budget "
        "(the run then counts against that token budget)."
    )
