"""Prices per million tokens and the cost of a Usage.

Unknown models cost ``None`` — never a guess. Users extend the table with
:func:`register_price`. Keys are exact model ids or prefixes ending in ``*`` (the longest
matching prefix wins, so ``claude-opus-5-5*`` beats ``claude-opus-5*``). A model string
with a provider prefix (``anthropic:claude-…``) is priced by its bare id; a colon that is
part of the id (``ft:gpt-…``, ``llama3.1:8b``) is not a provider prefix.

The table lists list prices (standard tier, no batch discount) as of ``PRICES_AS_OF``.
Cache writes are priced at the 5-minute rate, which is what loopwright requests. OpenAI
bills cache writes at the input rate; loopwright's Usage counts OpenAI's cached tokens
separately from the uncached input, so each is priced once.
"""

from __future__ import annotations

from dataclasses import dataclass

from loopwright.messages import Usage

PRICES_AS_OF = "2026-11-01"


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """US dollars per million tokens.

    ``long_prompt`` prices a whole response differently once its prompt (input + cache
    reads + cache writes) passes ``long_prompt_threshold`` tokens (e.g. Claude Haiku 5.5).
    """

    input: float
    output: float
    cache_read: float
    cache_write: float
    long_prompt_threshold: int | None = None
    long_prompt: ModelPrice | None = None


def _claude(input: float, output: float, cache_read: float) -> ModelPrice:
    # 5-minute cache writes cost 1.25x the input rate on every Claude model.
    return ModelPrice(input, output, cache_read, input * 1.25)


def _claude_long_context(input: float, output: float, cache_read: float) -> ModelPrice:
    long = _claude(input * 2, output * 1.5, cache_read * 2)
    base = _claude(input, output, cache_read)
    return ModelPrice(
        base.input,
        base.output,
        base.cache_read,
        base.cache_write,
        long_prompt_threshold=200_000,
        long_prompt=long,
    )


def _openai(input: float, output: float, cached: float) -> ModelPrice:
    return ModelPrice(input, output, cached, input)


_BUILTIN_PRICES: dict[str, ModelPrice] = {
    # ---- Anthropic (platform.claude.com pricing)
    "claude-fable-5-1*": _claude(10.0, 50.0, 0.25),
    "claude-mythos-5-1*": _claude(10.0, 50.0, 0.25),
    "claude-fable-5": _claude(10.0, 50.0, 1.0),
    "claude-mythos-5": _claude(10.0, 50.0, 1.0),
    "claude-opus-5-5*": _claude(4.0, 20.0, 0.20),
    "claude-opus-5*": _claude(5.0, 25.0, 0.50),
    "claude-opus-4-8*": _claude(5.0, 25.0, 0.50),
    "claude-opus-4-7*": _claude(5.0, 25.0, 0.50),
    "claude-opus-4-6*": _claude(5.0, 25.0, 0.50),
    "claude-opus-4-5*": _claude(5.0, 25.0, 0.50),
    "claude-opus-4-1*": _claude(15.0, 75.0, 1.50),
    "claude-opus-4-0*": _claude(15.0, 75.0, 1.50),
    "claude-opus-4-2*": _claude(15.0, 75.0, 1.50),  # claude-opus-4-20250514
    # Sonnet 5.5 cache reads were cut from $0.20 to $0.10 on 2026-10-07.
    "claude-sonnet-5-5*": _claude(2.0, 10.0, 0.10),
    "claude-sonnet-5*": _claude(2.0, 10.0, 0.20),
    # Sonnet 4 and 4.5 on the 1M-token beta ([1m]): a prompt over 200K tokens (cache reads
    # and writes included) bills the whole response at $6 / $22.50.
    "claude-sonnet-4-5*": _claude_long_context(3.0, 15.0, 0.30),
    "claude-sonnet-4-2*": _claude_long_context(3.0, 15.0, 0.30),  # claude-sonnet-4-20250514
    "claude-sonnet-4-0*": _claude_long_context(3.0, 15.0, 0.30),
    "claude-sonnet-4*": _claude(3.0, 15.0, 0.30),
    "claude-3-7-sonnet*": _claude(3.0, 15.0, 0.30),
    "claude-haiku-5-5*": ModelPrice(
        0.10,
        0.50,
        0.01,
        0.125,
        long_prompt_threshold=100_000,
        long_prompt=ModelPrice(0.50, 2.50, 0.05, 0.625),
    ),
    "claude-haiku-4-5*": _claude(1.0, 5.0, 0.10),
    "claude-3-5-haiku*": ModelPrice(0.80, 4.0, 0.08, 1.0),
    # ---- OpenAI (developers.openai.com pricing; cached input is 10% on the GPT-5 family)
    "gpt-5.6-sol*": _openai(5.0, 30.0, 0.50),
    "gpt-5.6-terra*": _openai(2.50, 15.0, 0.25),
    "gpt-5.6-luna*": _openai(1.0, 6.0, 0.10),
    "gpt-5.5-pro*": _openai(30.0, 180.0, 30.0),
    "gpt-5.5*": _openai(5.0, 30.0, 0.50),
    "gpt-5.4-pro*": _openai(30.0, 180.0, 30.0),
    "gpt-5.4-mini*": _openai(0.75, 4.50, 0.075),
    "gpt-5.4-nano*": _openai(0.20, 1.25, 0.02),
    "gpt-5.4*": _openai(2.50, 15.0, 0.25),
    "gpt-5.2-pro*": _openai(21.0, 168.0, 21.0),
    "gpt-5.2*": _openai(1.75, 14.0, 0.175),
    "gpt-5.1*": _openai(1.25, 10.0, 0.125),
    "gpt-5-mini*": _openai(0.25, 2.0, 0.025),
    "gpt-5-nano*": _openai(0.05, 0.40, 0.005),
    "gpt-5": _openai(1.25, 10.0, 0.125),
    "gpt-5-2025-08-07": _openai(1.25, 10.0, 0.125),
    "gpt-5-chat-latest": _openai(1.25, 10.0, 0.125),
    "gpt-4.1-mini*": _openai(0.40, 1.60, 0.10),
    "gpt-4.1-nano*": _openai(0.10, 0.40, 0.025),
    "gpt-4.1*": _openai(2.0, 8.0, 0.50),
    "gpt-4o-mini*": _openai(0.15, 0.60, 0.075),
    "gpt-4o": _openai(2.50, 10.0, 1.25),
    "gpt-4o-2024-08-06": _openai(2.50, 10.0, 1.25),
    "gpt-4o-2024-11-20": _openai(2.50, 10.0, 1.25),
    "o4-mini*": _openai(1.10, 4.40, 0.275),
    "o3-mini*": _openai(1.10, 4.40, 0.55),
    "o3-pro*": _openai(20.0, 80.0, 20.0),
    "o3": _openai(2.0, 8.0, 0.50),
    "o3-2025-04-16": _openai(2.0, 8.0, 0.50),
    "o1-mini*": _openai(1.10, 4.40, 0.55),
    "o1": _openai(15.0, 60.0, 7.50),
    "o1-2024-12-17": _openai(15.0, 60.0, 7.50),
    # ---- offline models are free
    "scripted": ModelPrice(0.0, 0.0, 0.0, 0.0),
    "function": ModelPrice(0.0, 0.0, 0.0, 0.0),
    "test": ModelPrice(0.0, 0.0, 0.0, 0.0),
}

_PRICES: dict[str, ModelPrice] = dict(_BUILTIN_PRICES)


def register_price(model: str, price: ModelPrice) -> None:
    """Add or replace the price of ``model`` (an exact id, or a prefix ending in ``*``)."""
    _PRICES[model] = price
    _LOOKUPS.clear()


def known_prices() -> dict[str, ModelPrice]:
    """A copy of the price table, built-in and registered entries together."""
    return dict(_PRICES)


# Only these prefixes name a provider; other colons belong to the id itself (a fine-tuned
# ``ft:gpt-4o-mini-…:org::id`` costs more than its base model, an Ollama ``llama3.1:8b`` is
# not ``8b``), and such ids are priced only if registered.
_PROVIDER_PREFIXES = ("anthropic:", "openai:", "openai-chat:", "scripted:")


# price_of per model id (every response is priced; most sessions use one model).
_LOOKUPS: dict[str, ModelPrice | None] = {}


def price_of(model: str) -> ModelPrice | None:
    if model in _LOOKUPS:
        return _LOOKUPS[model]
    price = _lookup(model)
    _LOOKUPS[model] = price
    return price


def _lookup(model: str) -> ModelPrice | None:
    prefix = next((p for p in _PROVIDER_PREFIXES if model.startswith(p)), "")
    bare = model[len(prefix) :]
    for key in (model, bare):
        if key in _PRICES:
            return _PRICES[key]
    best: tuple[int, ModelPrice] | None = None
    for key, price in _PRICES.items():
        matches = key.endswith("*") and bare.startswith(key[:-1])
        if matches and (best is None or len(key) > best[0]):
            best = (len(key), price)
    return best[1] if best else None


def cost_of(model: str, usage: Usage) -> float | None:
    """Dollars for one response's ``usage`` (or a sum of them), ``None`` if unpriced."""
    price = price_of(model)
    if price is None:
        return None
    threshold = price.long_prompt_threshold
    if price.long_prompt is not None and threshold is not None and usage.context_tokens > threshold:
        price = price.long_prompt
    dollars = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_input_tokens * price.cache_read
        + usage.cache_creation_input_tokens * price.cache_write
    ) / 1_000_000
    return round(dollars, COST_DECIMALS)


# Costs are kept to a millionth of a cent: binary float noise (0.0025800000000000003)
# stays out of results, JSON and budgets, and no price is that precise anyway.
COST_DECIMALS = 12


def add_costs(total: float | None, cost: float | None) -> float | None:
    """A running total plus one cost; unknown (None) once any part is unknown."""
    if total is None or cost is None:
        return None
    return round(total + cost, COST_DECIMALS)
