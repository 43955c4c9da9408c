"""Model strings share SDK clients, each among a bounded number of sessions."""

from __future__ import annotations

import asyncio

import pytest

from loopwright import Options, run
from loopwright.errors import ConfigurationError
from loopwright.models._client_pool import SESSIONS_PER_CLIENT_ENV
from loopwright.models.registry import resolve_model
from loopwright.models.scripted import text
from loopwright.testing.fake_anthropic import FakeAnthropicServer


async def test_sessions_beyond_the_per_client_limit_get_another_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SESSIONS_PER_CLIENT_ENV, "2")
    env = {"ANTHROPIC_API_KEY": "shards-of-two"}
    models = [resolve_model("anthropic:claude-sonnet-5-5", env=env) for _ in range(3)]
    clients = [m._clients.get() for m in models]  # pyright: ignore[reportAttributeAccessIssue]
    assert clients[0] is clients[1] and clients[2] is not clients[0]
    await models[0].aclose()  # pyright: ignore[reportAttributeAccessIssue]
    assert not clients[0].is_closed()  # the second session still uses it
    await models[1].aclose()  # pyright: ignore[reportAttributeAccessIssue]
    assert clients[0].is_closed() and not clients[2].is_closed()
    await models[2].aclose()  # pyright: ignore[reportAttributeAccessIssue]
    assert clients[2].is_closed()


async def test_many_sessions_on_small_shared_clients_all_finish(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SESSIONS_PER_CLIENT_ENV, "2")
    with FakeAnthropicServer([text(str(n)) for n in range(7)]) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "shards-run")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        options = Options(model="anthropic:claude-sonnet-5-5", tools=[], setting_sources=[])
        results = await asyncio.gather(*(run("hi", options) for _ in range(7)))
    assert [r.subtype for r in results] == ["success"] * 7
    assert sorted(r.result for r in results) == [str(n) for n in range(7)]


def test_a_bad_sessions_per_client_value_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SESSIONS_PER_CLIENT_ENV, "many")
    with pytest.raises(ConfigurationError, match=r"positive whole number.*default 64"):
        resolve_model("anthropic:claude-sonnet-5-5", env={"ANTHROPIC_API_KEY": "shards-bad"})
