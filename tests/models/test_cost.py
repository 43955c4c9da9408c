"""The price table: lookups, prefixes, unknown models, the long-prompt tier."""

from __future__ import annotations

import pytest

from loopwright.cost import ModelPrice, cost_of, known_prices, price_of, register_price
from loopwright.messages import Usage

MILLION = Usage(1_000_000, 1_000_000, 1_000_000, 1_000_000)


@pytest.mark.parametrize(
    ("model", "input", "output", "cache_read", "cache_write"),
    [
        ("claude-opus-5-5", 4.0, 20.0, 0.20, 5.0),
        ("claude-opus-5", 5.0, 25.0, 0.50, 6.25),
        ("claude-sonnet-5-5", 2.0, 10.0, 0.10, 2.5),
        ("claude-sonnet-4-5-20250929", 3.0, 15.0, 0.30, 3.75),
        ("claude-haiku-4-5", 1.0, 5.0, 0.10, 1.25),
        ("anthropic:claude-opus-4-6", 5.0, 25.0, 0.50, 6.25),
        ("gpt-5.5", 5.0, 30.0, 0.50, 5.0),
        ("gpt-5-mini-2025-08-07", 0.25, 2.0, 0.025, 0.25),
        ("gpt-4.1", 2.0, 8.0, 0.50, 2.0),
        ("gpt-4o", 2.50, 10.0, 1.25, 2.50),
        ("o4-mini", 1.10, 4.40, 0.275, 1.10),
    ],
)
def test_known_prices(
    model: str, input: float, output: float, cache_read: float, cache_write: float
) -> None:
    price = price_of(model)
    assert price is not None
    assert (price.input, price.output, price.cache_read) == (input, output, cache_read)
    assert price.cache_write == pytest.approx(cache_write)


def test_unknown_models_cost_none() -> None:
    assert price_of("llama3.1:8b") is None
    assert cost_of("my-local-model", MILLION) is None


def test_cost_adds_every_token_kind() -> None:
    usage = Usage(
        input_tokens=1000,
        output_tokens=500,
        cache_read_input_tokens=10_000,
        cache_creation_input_tokens=2000,
    )
    expected = (1000 * 2.0 + 500 * 10.0 + 10_000 * 0.10 + 2000 * 2.5) / 1_000_000
    assert cost_of("claude-sonnet-5-5", usage) == pytest.approx(expected)


def test_haiku_5_5_long_prompts_cost_more() -> None:
    short = cost_of("claude-haiku-5-5", Usage(input_tokens=50_000, output_tokens=1000))
    long = cost_of("claude-haiku-5-5", Usage(input_tokens=150_000, output_tokens=1000))
    assert short == pytest.approx((50_000 * 0.10 + 1000 * 0.50) / 1_000_000)
    assert long == pytest.approx((150_000 * 0.50 + 1000 * 2.50) / 1_000_000)


def test_users_can_register_prices_and_prefixes() -> None:
    register_price("acme-large*", ModelPrice(1.0, 2.0, 0.1, 1.0))
    register_price("acme-large-v2", ModelPrice(3.0, 4.0, 0.3, 3.0))
    assert price_of("acme-large-v1") == ModelPrice(1.0, 2.0, 0.1, 1.0)
    assert price_of("acme-large-v2") == ModelPrice(3.0, 4.0, 0.3, 3.0)
    assert "acme-large*" in known_prices()


def test_offline_models_are_free() -> None:
    assert cost_of("scripted", MILLION) == 0.0


def test_a_colon_inside_a_model_id_is_not_a_provider_prefix() -> None:
    # A fine-tuned model bills more than its base model: unknown, so None, not a guess.
    assert cost_of("ft:gpt-4o-mini-2024-07-18:acme::abc123", Usage(1000, 1000)) is None
    assert price_of("openai-chat:gpt-4o") == price_of("gpt-4o") is not None
    assert price_of("anthropic:claude-haiku-4-5") == price_of("claude-haiku-4-5") is not None


def test_sonnet_4_5_over_200k_prompt_tokens_bills_the_long_context_rate() -> None:
    short, long = Usage(100_000, 1000), Usage(150_000, 1000, cache_read_input_tokens=60_000)
    assert cost_of("claude-sonnet-4-5[1m]", short) == pytest.approx((100_000 * 3 + 1000 * 15) / 1e6)
    expected = (150_000 * 6 + 1000 * 22.5 + 60_000 * 0.6) / 1e6
    assert cost_of("claude-sonnet-4-5-20250929", long) == pytest.approx(expected)
    assert cost_of("claude-sonnet-4-20250514", long) == pytest.approx(expected)
