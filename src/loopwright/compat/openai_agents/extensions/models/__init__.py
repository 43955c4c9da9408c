"""``agents.extensions.models``: models on other libraries (LiteLLM)."""
