"""The README as a newcomer meets it: a copy of the repository, `make demo` (which creates
.venv with the extras the examples use, from the package index and not from the dev lock),
then every README block run with that virtualenv's Python and ``loopwright``."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _copy_of_the_repository(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    for name in listed:
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _environment(tmp_path: Path) -> dict[str, str]:
    real_home = pwd.getpwuid(os.getuid()).pw_dir
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LOOPWRIGHT_MODEL", "ANTHROPIC_", "OPENAI_", "VIRTUAL_ENV"))
    }
    environment.setdefault("PIP_CACHE_DIR", str(Path(real_home) / ".cache" / "pip"))
    environment.update(HOME=str(tmp_path / "home"), LOOPWRIGHT_HOME=str(tmp_path / "lw-home"))
    return environment


@pytest.mark.timeout(1500)
def test_every_readme_block_runs_in_the_virtualenv_make_demo_leaves(tmp_path: Path) -> None:
    project = _copy_of_the_repository(tmp_path / "loopwright")
    environment = _environment(tmp_path)
    demo = subprocess.run(
        ["make", "demo", f"PYTHON={sys.executable}"],
        cwd=project,
        capture_output=True,
        text=True,
        env=environment,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    if demo.returncode != 0 and "Could not find a version" in demo.stdout + demo.stderr:
        pytest.skip("the package index is unreachable, so `make demo` cannot install")
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    fresh_python = project / ".venv" / "bin" / "python"
    unlocked = subprocess.run(
        [str(fresh_python), "-m", "pip", "show", "pytest"], capture_output=True, text=True
    )
    assert unlocked.returncode != 0, "make demo must not install the dev tools"

    blocks = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/docs"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "LOOPWRIGHT_README_PYTHON": str(fresh_python)},
        timeout=1200,
        stdin=subprocess.DEVNULL,
    )
    assert blocks.returncode == 0, blocks.stdout[-6000:] + blocks.stderr[-3000:]
