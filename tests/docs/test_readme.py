"""Every code block of README.md runs as printed: Python blocks with this interpreter, shell
blocks with bash and the installed ``loopwright``, models played by the fake provider
servers on 127.0.0.1 (scripts in tests/docs/scripts/) or the scripted model."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from loopwright.models.scripted import load_script
from loopwright.testing.fake_anthropic import FakeAnthropicServer
from loopwright.testing.fake_openai import FakeOpenAIServer

from .readme_blocks import README, Block, readme_blocks

SCRIPTS = Path(__file__).parent / "scripts"
# The interpreter the blocks run with: this one, or (tests/packaging) a fresh virtualenv
# made by the README's own `make demo`, which has no dev tools and no lock file.
PYTHON = os.environ.get("LOOPWRIGHT_README_PYTHON") or sys.executable
BLOCKS = readme_blocks()
RUNNABLE = [b for b in BLOCKS if b.skip_reason is None and b.file_name is None]


def test_every_block_says_how_it_is_run() -> None:
    undeclared = [b.id for b in BLOCKS if b.directive is None]
    assert not undeclared, f"add a <!-- doc-test: ... --> line above: {undeclared}"
    assert all(b.language in ("python", "sh", "yaml") for b in BLOCKS)
    assert len(RUNNABLE) >= 10
    for block in BLOCKS:
        assert block.skip_reason is None or len(block.skip_reason) > 10, block.id


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(README, project / "README.md")
    for block in BLOCKS:
        if block.file_name is not None:
            (project / block.file_name).write_text(block.code)
    return project


def _environment(tmp_path: Path, anthropic: str, openai: str, block: Block) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    keep.pop("LOOPWRIGHT_MODEL", None)
    bin_dir = str(Path(PYTHON).parent)
    return {
        **keep,
        "PATH": f"{bin_dir}:{keep.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "LOOPWRIGHT_HOME": str(tmp_path / "loopwright-home"),
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": anthropic,
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": openai,
        **block.env,
    }


def _script(block: Block, provider: str) -> list[object]:
    name = block.scripts.get(provider)
    return list(load_script(SCRIPTS / f"{name}.yaml")) if name else []


@pytest.mark.timeout(240)
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_the_readme_block_runs_as_printed(block: Block, tmp_path: Path) -> None:
    project = _project(tmp_path)
    with (
        FakeAnthropicServer(_script(block, "anthropic")) as anthropic,  # type: ignore[arg-type]
        FakeOpenAIServer(_script(block, "openai")) as openai,  # type: ignore[arg-type]
    ):
        command = (
            [PYTHON, "-c", block.code]
            if block.language == "python"
            else ["bash", "-e", "-o", "pipefail", "-c", block.code]
        )
        done = subprocess.run(
            command,
            cwd=project,
            env=_environment(tmp_path, anthropic.url, openai.base_url, block),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=200,
        )
        assert done.returncode == 0, f"{block.id}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        assert "Traceback" not in done.stderr, done.stderr
        anthropic.assert_complete()
        openai.assert_complete()
