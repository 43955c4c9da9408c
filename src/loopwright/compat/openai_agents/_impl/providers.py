"""Model providers of the OpenAI Agents layer: ``OpenAIProvider``, ``MultiProvider`` (model
names with a ``prefix/``) and the process-wide defaults ``set_default_openai_client`` /
``_key`` / ``_api`` set, as that SDK keeps them.

A model string is looked up by ``RunConfig(model_provider=...)`` when one is given; else,
once a default client or API is set, it is served through that client (its base URL and
key) on that API; else it goes through loopwright's registry as before.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from loopwright.compat._model_choice import MODEL_OVERRIDE_VARIABLE
from loopwright.compat.openai_agents._impl.errors import UserError
from loopwright.compat.openai_agents._impl.model_interface import ModelProvider
from loopwright.compat.openai_agents._impl.models import (
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
)
from loopwright.compat.openai_agents._impl.run_config import RunConfig
from loopwright.models.registry import DEFAULT_OPENAI_MODEL

Api = Literal["responses", "chat_completions"]


class _Defaults:
    """What ``set_default_openai_*`` chose (one value each, as in that SDK)."""

    client: Any = None
    api: Api | None = None


def set_default_openai_key(key: str, use_for_tracing: bool = True) -> None:
    os.environ["OPENAI_API_KEY"] = key


def set_default_openai_client(client: Any, use_for_tracing: bool = True) -> None:
    """Serve model names through ``client`` (an ``AsyncOpenAI``): its base URL and key."""
    _Defaults.client = client


def set_default_openai_api(api: Api) -> None:
    if api not in ("responses", "chat_completions"):
        raise UserError(f"set_default_openai_api({api!r}): use 'responses' or 'chat_completions'")
    _Defaults.api = api


def defaults_chosen() -> bool:
    return _Defaults.client is not None or _Defaults.api is not None


class OpenAIProvider(ModelProvider):
    """Model names on OpenAI's API (or any compatible server) through one client."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        openai_client: Any = None,
        organization: str | None = None,
        project: str | None = None,
        use_responses: bool | None = None,
        **_: Any,
    ) -> None:
        if openai_client is not None and (api_key or base_url):
            raise UserError("pass openai_client= or api_key=/base_url=, not both")
        self._client = openai_client
        self._api_key = api_key
        self._base_url = base_url
        self._use_responses = use_responses

    def _openai_client(self) -> Any:
        if self._client is not None:
            return self._client
        if self._api_key or self._base_url:
            from openai import AsyncOpenAI  # the SDK client is slow to import: when asked

            self._client = AsyncOpenAI(api_key=self._api_key or "unused", base_url=self._base_url)
            return self._client
        return _Defaults.client

    def get_model(self, model_name: str | None) -> Any:
        name = model_name or DEFAULT_OPENAI_MODEL
        responses = self._use_responses
        if responses is None:
            responses = _Defaults.api != "chat_completions"
        kind = OpenAIResponsesModel if responses else OpenAIChatCompletionsModel
        return kind(name, openai_client=self._openai_client())


class MultiProviderMap:
    """Prefix → provider, for ``MultiProvider(provider_map=...)``."""

    def __init__(self) -> None:
        self._providers: dict[str, ModelProvider] = {}

    def has_prefix(self, prefix: str) -> bool:
        return prefix in self._providers

    def get_mapping(self) -> dict[str, ModelProvider]:
        return dict(self._providers)

    def set_mapping(self, mapping: dict[str, ModelProvider]) -> None:
        self._providers = dict(mapping)

    def get_provider(self, prefix: str) -> ModelProvider | None:
        return self._providers.get(prefix)

    def add_provider(self, prefix: str, provider: ModelProvider) -> None:
        self._providers[prefix] = provider

    def remove_provider(self, prefix: str) -> None:
        self._providers.pop(prefix, None)


class MultiProvider(ModelProvider):
    """``openai/gpt-5`` → OpenAI, ``litellm/anthropic/claude-…`` → LiteLLM, a prefix of
    ``provider_map`` → that provider; a name with no prefix goes to OpenAI."""

    def __init__(
        self,
        *,
        provider_map: MultiProviderMap | None = None,
        openai_api_key: str | None = None,
        openai_base_url: str | None = None,
        openai_client: Any = None,
        openai_organization: str | None = None,
        openai_project: str | None = None,
        openai_use_responses: bool | None = None,
        **_: Any,
    ) -> None:
        self.provider_map = provider_map
        self.openai_provider = OpenAIProvider(
            api_key=openai_api_key,
            base_url=openai_base_url,
            openai_client=openai_client,
            use_responses=openai_use_responses,
        )

    def _fallback(self, prefix: str) -> ModelProvider:
        if prefix == "openai":
            return self.openai_provider
        if prefix == "litellm":
            # Loaded when asked for: it brings the Chat Completions provider (start-up).
            from loopwright.compat.openai_agents._impl.litellm import LitellmProvider

            return LitellmProvider()
        raise UserError(
            f"no model provider for the prefix {prefix!r}; use 'openai/…' or 'litellm/…', or "
            "add one with MultiProviderMap.add_provider(prefix, provider)"
        )

    def get_model(self, model_name: str | None) -> Any:
        if model_name is None or "/" not in model_name:
            return self.openai_provider.get_model(model_name)
        prefix, name = model_name.split("/", 1)
        chosen = self.provider_map.get_provider(prefix) if self.provider_map else None
        return (chosen or self._fallback(prefix)).get_model(name)


def provided_model(spec: Any, run_config: RunConfig) -> Any:
    """What a model string names once the run's provider (or the defaults) look it up; a
    model object is returned as it is."""
    if spec is not None and not isinstance(spec, str):
        return spec
    provider = run_config.model_provider
    if provider is not None and not isinstance(provider, MultiProvider | OpenAIProvider):
        return provider.get_model(spec)
    if os.environ.get(MODEL_OVERRIDE_VARIABLE, "").strip():
        return spec  # LOOPWRIGHT_MODEL replaces every named model
    if provider is not None:
        return provider.get_model(spec)
    if defaults_chosen() and (spec is None or ("/" not in spec and ":" not in spec)):
        return OpenAIProvider().get_model(spec)
    return spec
