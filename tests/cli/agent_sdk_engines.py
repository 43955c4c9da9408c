"""The models the Agent SDK tests run on: a scripted model file, or OpenAI's fake server.

A test writes its model's side once, as loopwright Steps; ``engine(kind, steps)`` turns
them into what the SDK passes on (the ``--model`` string and the environment).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from loopwright.models.scripted import Step
from loopwright.testing.fake_openai import FakeOpenAIServer

ENGINES = ("scripted", "openai")


@dataclass
class Engine:
    model: str
    env: dict[str, str]
    server: FakeOpenAIServer | None = None
    bodies: list[Any] = field(default_factory=list[Any])

    def requests(self) -> list[Any]:
        """The request bodies the model received (the fake server's; scripted: none)."""
        return self.server.bodies("/responses") if self.server is not None else []


def loopwright_cli() -> str:
    """The console script the SDKs start as their CLI (cli_path)."""
    beside = Path(sys.executable).with_name("loopwright")
    if beside.exists():
        return str(beside)
    found = shutil.which("loopwright")
    assert found, "the loopwright console script is not installed; run: pip install -e ."
    return found


def _step_data(step: Step) -> dict[str, Any]:
    if step.calls:
        calls = [{"name": c.name, "input": c.input} for c in step.calls]
        return {"tool_calls": calls, "text": step.text} if step.text else {"tool_calls": calls}
    return {"text": step.text}


@contextmanager
def engine(kind: str, steps: Sequence[Step], tmp_path: Path) -> Iterator[Engine]:
    base_env = {
        "LOOPWRIGHT_HOME": os.environ.get("LOOPWRIGHT_HOME", ""),
        "HOME": os.environ["HOME"],
    }
    if kind == "scripted":
        script = tmp_path / f"model-{len(list(tmp_path.glob('model-*.yaml')))}.yaml"
        script.write_text(yaml.safe_dump([_step_data(s) for s in steps]))
        yield Engine(f"scripted:{script}", base_env)
        return
    with FakeOpenAIServer(list(steps)) as server:
        env = {**base_env, "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_API_KEY": "test-key"}
        yield Engine("openai:gpt-5.5", env, server)
