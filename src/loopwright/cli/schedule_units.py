"""``loopwright schedule list`` and ``remove``: the timers ``schedule install`` wrote.

A unit is ours when its name starts with ``loopwright-`` and its service's description
says ``loopwright:`` (what ``install`` writes); other units in the directory are never
listed or touched.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from loopwright.cli.terminal_text import visible_line

EXIT_NOT_FOUND = 1


@dataclass(frozen=True, slots=True)
class InstalledRun:
    name: str
    description: str  # "loopwright: PROMPT"
    when: str  # the timer's description before ": loopwright:"
    working_directory: str


def installed_runs(directory: Path) -> list[InstalledRun]:
    runs: list[InstalledRun] = []
    for service in sorted(directory.glob("loopwright-*.service")):
        fields = _unit_fields(service)
        description = fields.get("Description", "")
        if not description.startswith("loopwright:"):
            continue
        timer = _unit_fields(service.with_suffix(".timer")).get("Description", "")
        when = timer.split(": loopwright:", 1)[0] if ": loopwright:" in timer else "no timer"
        runs.append(
            InstalledRun(service.stem, description, when, fields.get("WorkingDirectory", ""))
        )
    return runs


def _unit_fields(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    return fields


def list_command(directory: Path) -> int:
    runs = installed_runs(directory)
    if not runs:
        print(f"no scheduled runs in {directory}; add one with `loopwright schedule install`")
        return 0
    for run in runs:
        line = f"{run.name}  {run.when}  in {run.working_directory}  ({run.description})"
        print(visible_line(line))  # unit files are text anyone with access may have written
    return 0


def remove_command(directory: Path, name: str, *, dry_run: bool) -> int:
    """Stop and disable the timer, then delete both unit files."""
    known = {run.name: run for run in installed_runs(directory)}
    if name not in known:
        names = ", ".join(known) or "none"
        print(
            f"loopwright schedule: no scheduled run named {visible_line(repr(name))} "
            f"(installed: {visible_line(names)}); "
            "`loopwright schedule list` shows them",
            file=sys.stderr,
        )
        return EXIT_NOT_FOUND
    files = [directory / f"{name}.timer", directory / f"{name}.service"]
    if dry_run:
        print("would remove " + ", ".join(str(f) for f in files if f.exists()))
        return 0
    _systemctl("disable", "--now", f"{name}.timer")
    for unit in files:
        unit.unlink(missing_ok=True)
    _systemctl("daemon-reload")
    print(f"removed {name} (.service and .timer)")
    return 0


def _systemctl(*arguments: str) -> None:
    """Best effort: a machine without a user systemd (a container) still loses the files."""
    try:
        subprocess.run(
            ["systemctl", "--user", *arguments],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        pass
