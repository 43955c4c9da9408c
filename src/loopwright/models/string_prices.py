"""Prices given in a model string: ``openai-chat:qwen3-coder?base_url=…&input_price=0.3&
output_price=1.2`` (US dollars per million tokens; ``cache_read_price`` and
``cache_write_price`` default to the input price). They are registered for the model id,
as :func:`loopwright.register_price` would, so costs and ``max_budget_usd`` work for a model
the built-in table does not know."""

from __future__ import annotations

import math

from loopwright.cost import ModelPrice, register_price
from loopwright.errors import ConfigurationError

PRICE_KEYS = ("input_price", "output_price", "cache_read_price", "cache_write_price")


def take_prices(model: str, options: dict[str, str]) -> dict[str, str]:
    """``options`` without the price keys; the prices they give are registered for
    ``model``. Giving one of input/output without the other is an error."""
    given = {k: options[k] for k in PRICE_KEYS if k in options}
    rest = {k: v for k, v in options.items() if k not in PRICE_KEYS}
    if not given:
        return rest
    if "input_price" not in given or "output_price" not in given:
        raise ConfigurationError(
            f"model {model!r} has only some prices; give both input_price and output_price "
            "(US dollars per million tokens), e.g. ?input_price=0.3&output_price=1.2"
        )
    dollars = {k: _dollars(model, k, v) for k, v in given.items()}
    input_price = dollars["input_price"]
    register_price(
        model,
        ModelPrice(
            input=input_price,
            output=dollars["output_price"],
            cache_read=dollars.get("cache_read_price", input_price),
            cache_write=dollars.get("cache_write_price", input_price),
        ),
    )
    return rest


def _dollars(model: str, key: str, value: str) -> float:
    try:
        amount = float(value)
    except ValueError:
        amount = math.nan
    if not math.isfinite(amount) or amount < 0:
        raise ConfigurationError(
            f"{key}={value!r} in the model string of {model!r} is not a price; give US "
            "dollars per million tokens as a number, 0 or more (e.g. input_price=0.3)"
        )
    return amount
