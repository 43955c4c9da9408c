"""Prices per million tokens and the cost of a Usage.

Unknown models cost ``None`` — never a guess. Users extend the table with
:func:`register_price`.
"""

from __future__ import annotations

from dataclasses import dataclass

from loopwright.messages import Usage

PRICES_AS_OF = "2026-11-01"


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


_PRICES: dict[str, ModelPrice] = {
    "scripted": ModelPrice(0.0, 0.0, 0.0, 0.0),
    "function": ModelPrice(0.0, 0.0, 0.0, 0.0),
}


def register_price(model: str, price: ModelPrice) -> None:
    """Add or replace the price of ``model`` (an exact id, or a prefix ending in ``*``)."""
    _PRICES[model] = price


def price_of(model: str) -> ModelPrice | None:
    bare = model.split(":", 1)[1] if ":" in model else model
    for key in (model, bare):
        if key in _PRICES:
            return _PRICES[key]
    best: tuple[int, ModelPrice] | None = None
    for key, price in _PRICES.items():
        is_prefix_match = key.endswith("*") and bare.startswith(key[:-1])
        if is_prefix_match and (best is None or len(key) > best[0]):
            best = (len(key), price)
    return best[1] if best else None


def cost_of(model: str, usage: Usage) -> float | None:
    price = price_of(model)
    if price is None:
        return None
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_input_tokens * price.cache_read
        + usage.cache_creation_input_tokens * price.cache_write
    ) / 1_000_000
