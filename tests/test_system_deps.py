"""The skip helper: a newcomer gets a skip that says how to install; CI gets a failure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
from system_deps import require_program

def test_needs_a_missing_program():
    require_program("loopwright-no-such-program", purpose="the probe")
"""


def _run_probe(tmp_path: Path, require: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parent)}
    if require is not None:
        env["LOOPWRIGHT_REQUIRE_SYSTEM_DEPS"] = require
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )


def test_a_missing_program_is_a_skip_that_says_how_to_install(tmp_path: Path) -> None:
    done = _run_probe(tmp_path, require=None)
    assert done.returncode == 0, done.stdout
    assert "1 skipped" in done.stdout
    assert "needs loopwright-no-such-program, which is not installed" in done.stdout
    assert "install loopwright-no-such-program" in done.stdout


@pytest.mark.parametrize("value", ["1", "true"])
def test_ci_turns_the_skip_into_a_failure(tmp_path: Path, value: str) -> None:
    done = _run_probe(tmp_path, require=value)
    assert done.returncode == 1, done.stdout
    assert "1 failed" in done.stdout
    assert "LOOPWRIGHT_REQUIRE_SYSTEM_DEPS=1" in done.stdout
