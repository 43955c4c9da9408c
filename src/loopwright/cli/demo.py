"""``loopwright demo``: watch an agent fix a failing test, offline.

A small project with a failing test is copied to a temporary directory; the scripted
model plays the model's side, and the real Bash, Read and Edit tools do the work.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from rich.console import Console

from loopwright.cli.render import Renderer
from loopwright.client import query
from loopwright.messages import ResultMessage
from loopwright.models.scripted import ScriptedModel
from loopwright.options import Options


def copy_demo_project(target: Path) -> Path:
    source = resources.files("loopwright") / "demo_project"
    project = target / "calc-project"
    project.mkdir()
    for entry in source.iterdir():
        if entry.name.endswith(".py"):
            (project / entry.name).write_text(entry.read_text(encoding="utf-8"), encoding="utf-8")
    return project


def demo_script() -> Path:
    return Path(str(resources.files("loopwright") / "cli" / "demo_script.yaml"))


def demo_command(argv: Sequence[str]) -> int:
    """``loopwright demo``: takes no arguments, so ``--help`` explains and anything else is
    a usage error (exit 2) instead of running the demo anyway."""
    parser = argparse.ArgumentParser(
        prog="loopwright demo",
        description="Watch an agent fix a failing test, offline: the model's side is played "
        "from a script, the tools (Bash, Read, Edit) are real, in a temporary copy of a "
        "small project. Needs no API key.",
    )
    parser.parse_args(list(argv))
    return asyncio.run(run_demo())


async def run_demo(console: Console | None = None) -> int:
    renderer = Renderer(console, show_prompt=True)
    workdir = Path(tempfile.mkdtemp(prefix="loopwright-demo-"))
    try:
        project = copy_demo_project(workdir)
        renderer.console.print(
            f"[bold]loopwright demo[/bold] — a scripted model fixes a failing test in {project}\n"
            "[dim](the model's side is played from a script; the tools are real)[/dim]\n"
        )
        model = ScriptedModel.from_file(demo_script())
        options = Options(
            model=model,
            cwd=project,
            tools=["Bash", "Read", "Edit"],
            # Edits inside the project are approved; of shell commands, only the tests.
            permission_mode="acceptEdits",
            allowed_tools=["Bash(python3 -m unittest *)"],
            setting_sources=[],
            # The project lives in a temp dir deleted below: a transcript of it could
            # never be resumed, so none is written.
            persist_session=False,
        )
        result: ResultMessage | None = None
        task = "The tests in this project fail. Find and fix the bug."
        async for message in query(task, options):
            renderer.show(message)
            if isinstance(message, ResultMessage):
                result = message
        fixed = (project / "calc.py").read_text(encoding="utf-8")
        ok = result is not None and not result.is_error and "return a + b" in fixed
        renderer.console.print("[green]demo finished[/green]" if ok else "[red]demo failed[/red]")
        return 0 if ok else 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
