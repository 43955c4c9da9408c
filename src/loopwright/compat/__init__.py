"""Drop-in layers for code written against other agent SDKs.

Change one import and the code runs on loopwright's native loop:

* ``from claude_agent_sdk import ...`` → ``from loopwright.compat.claude_agent_sdk import ...``
* ``from agents import ...`` → ``from loopwright.compat.openai_agents import ...``

Model names written in that code ("sonnet", "gpt-5") go through loopwright's model registry.
``LOOPWRIGHT_MODEL`` in the environment replaces them, so the same script can run against
another provider, or offline with ``LOOPWRIGHT_MODEL=scripted:<file>``, without editing it.
Nothing is imported here: each layer loads only when its module is imported.
"""
