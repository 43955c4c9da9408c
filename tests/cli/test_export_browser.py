"""The exported session page in a real headless Chromium: it renders, the usage chart is
visible, and the browser reports no console errors. The screenshot is kept as an artifact
(in $LOOPWRIGHT_ARTIFACTS when set: .ci/run keeps test-artifacts/)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from PIL import Image

from system_deps import require_program

CLI = [sys.executable, "-m", "loopwright.cli.main"]
INPUT_BLUE = (0x00, 0x72, 0xB2)  # the chart's "input" series (usage_chart.py)
OUTPUT_GREEN = (0x00, 0x9E, 0x73)  # the chart's "output" series
# Chromium logs each console message on stderr with --enable-logging=stderr.
CONSOLE_PROBLEM = re.compile(r"CONSOLE\(\d+\)\].*|Uncaught .*|Refused to .*|Failed to load .*")


def _exported_page(tmp_path: Path) -> Path:
    script = tmp_path / "script.yaml"
    script.write_text(
        yaml.safe_dump(
            [
                {"text": "Looking.", "tool_call": {"name": "Bash", "input": {"command": "ls"}}},
                {"tool_call": {"name": "Bash", "input": {"command": "echo 東京"}}},
                {"text": "Done.", "usage": {"input_tokens": 900, "output_tokens": 300}},
            ]
        )
    )
    environment = {k: v for k, v in os.environ.items() if k != "LOOPWRIGHT_MODEL"}
    for command in (
        ["-p", "go", "--model", f"scripted:{script}", "--session-id", "browser-check",
         "--permission-mode", "bypassPermissions"],
        ["sessions", "export", "browser-check", "-o", "page.html"],
    ):  # fmt: skip
        done = subprocess.run(
            [*CLI, *command], cwd=tmp_path, env=environment, capture_output=True, text=True,
            timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return tmp_path / "page.html"


def _screenshot(page: Path, shot: Path, tmp_path: Path) -> str:
    """Render ``page`` in headless Chromium into ``shot``; returns the console problems."""
    chromium = require_program("chromium", purpose="the exported page's browser check")
    done = subprocess.run(
        [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr", "--v=0", "--window-size=1200,1600",
            f"--screenshot={shot}", page.as_uri(),
        ],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
    )  # fmt: skip
    assert shot.exists(), f"chromium wrote no screenshot (exit {done.returncode}):\n{done.stderr}"
    return "\n".join(CONSOLE_PROBLEM.findall(done.stderr))


def _pixels_of(image: Image.Image, colour: tuple[int, int, int]) -> int:
    rgb = image.convert("RGB")
    return sum(
        count
        for count, pixel in rgb.getcolors(maxcolors=rgb.width * rgb.height) or []
        if all(abs(a - b) <= 8 for a, b in zip(pixel, colour, strict=True))
    )


def _keep(shot: Path) -> None:
    artifacts = os.environ.get("LOOPWRIGHT_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / "session-export.png")


def test_the_exported_page_renders_with_a_visible_chart_and_no_console_errors(
    tmp_path: Path,
) -> None:
    page = _exported_page(tmp_path)
    shot = tmp_path / "session-export.png"
    problems = _screenshot(page, shot, tmp_path)
    _keep(shot)
    assert problems == "", problems
    image = Image.open(shot)
    assert image.size == (1200, 1600)
    assert _pixels_of(image, INPUT_BLUE) > 200, "the chart's input bars are not visible"
    assert _pixels_of(image, OUTPUT_GREEN) > 100, "the chart's output bars are not visible"


def test_the_console_check_sees_an_error_when_there_is_one(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text("<!doctype html><p>x</p><script>console.error('boom'); nope();</script>")
    problems = _screenshot(page, tmp_path / "broken.png", tmp_path)
    assert "boom" in problems or "nope" in problems, problems
