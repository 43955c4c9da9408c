"""``loopwright schedule install|list|remove``: recurring agent runs as systemd user timers.

The unit runs this same Python and loopwright (``python -m loopwright.cli.main``), in the
chosen directory, with API keys from ``~/.config/loopwright/env`` (neither systemd user
services nor cron see your shell's environment; the cron line loads that file too). With
``--until`` each firing is an outer loop (``loopwright loop``); without it, one print-mode
run. When: ``--every 1h``, ``--at 03:00`` (daily) or ``--on-calendar SPEC`` (systemd's
calendar syntax); calendar timers are ``Persistent=true``, so a run missed while the
machine was off happens at the next boot.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

from loopwright.cli.durations import parse_duration
from loopwright.cli.schedule_units import list_command, remove_command
from loopwright.cli.terminal_text import visible

EXIT_USAGE = 2
ENV_FILE_HINT = "~/.config/loopwright/env"


@dataclass(frozen=True, slots=True)
class Every:
    """Every ``seconds`` since the timer started (and since the last run)."""

    seconds: int


@dataclass(frozen=True, slots=True)
class Calendar:
    """At calendar times: ``spec`` in systemd's OnCalendar syntax; ``cron`` the same as five
    cron fields when cron can say it (``--at``), else None."""

    spec: str
    cron: str | None


When = Every | Calendar


@dataclass(frozen=True, slots=True)
class ScheduledRun:
    name: str
    prompt: str
    when: When
    cwd: Path
    until: str | None
    agent_args: tuple[str, ...]

    def argv(self) -> list[str]:
        """The command each firing runs."""
        return [sys.executable, "-m", "loopwright.cli.main", *self.cli_arguments()]

    def cli_arguments(self) -> list[str]:
        # A prompt or check that starts with "-" would be read as a flag: pass it as
        # --flag=value, or (the loop's prompt) after "--", so every firing parses it back.
        if self.until is not None:
            until = f"--until={self.until}" if self.until.startswith("-") else None
            if self.prompt.startswith("-"):
                return [
                    "loop",
                    until or f"--until={self.until}",
                    *self.agent_args,
                    "--",
                    self.prompt,
                ]
            return [
                "loop",
                self.prompt,
                *([until] if until else ["--until", self.until]),
                *self.agent_args,
            ]
        if self.prompt.startswith("-"):
            return [f"--print={self.prompt}", *self.agent_args]
        return ["-p", self.prompt, *self.agent_args]

    def check_arguments(self) -> None:
        """Parse the firing's command line now, as each firing will: flags that would fail
        every run (a typo, a missing value) are refused before anything is installed."""
        arguments = self.cli_arguments()
        if self.until is not None:
            from loopwright.cli.outer_loop import loop_parser as parser_for
        else:
            from loopwright.cli.main import build_parser as parser_for
        parser = parser_for()
        parser.exit_on_error = False
        try:
            _, unknown = parser.parse_known_args(
                arguments[1:] if self.until is not None else arguments
            )
            problem = f"unrecognized arguments: {' '.join(unknown)}" if unknown else None
        except argparse.ArgumentError as exc:
            problem = str(exc)
        if problem is not None:
            raise ValueError(
                f"each run would fail to start ({problem}). Check the agent flags after `--` "
                "(see `loopwright --help`); nothing was installed"
            )


def unit_name(prompt: str, cwd: Path) -> str:
    """Readable and stable: the prompt's first words plus a hash of prompt and directory."""
    slug = re.sub(r"[^a-z0-9]+", "-", prompt.lower()).strip("-")[:32].strip("-") or "run"
    digest = hashlib.sha256(f"{cwd}\0{prompt}".encode()).hexdigest()[:8]
    return f"loopwright-{slug}-{digest}"


def _systemd_quote(word: str) -> str:
    # systemd's own quoting, not a shell's: backslash escapes inside double quotes, and
    # % (specifiers) and $ (variables) are doubled to stay literal.
    escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped.replace("%", "%%").replace("$", "$$") + '"'


def service_unit(run: ScheduledRun) -> str:
    command = " ".join(_systemd_quote(word) for word in run.argv())
    return (
        "[Unit]\n"
        f"Description=loopwright: {_one_line(run.prompt)}\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"WorkingDirectory={str(run.cwd).replace('%', '%%')}\n"
        # Optional ("-"): API keys and LOOPWRIGHT_MODEL, one VAR=value a line.
        "EnvironmentFile=-%h/.config/loopwright/env\n"
        f"ExecStart={command}\n"
    )


def timer_unit(run: ScheduledRun) -> str:
    match run.when:
        case Every(seconds=seconds):
            when = f"Every {seconds}s"
            trigger = f"OnActiveSec={seconds}s\nOnUnitActiveSec={seconds}s\n"
        case Calendar(spec=spec):
            when = f"At {spec}"
            trigger = f"OnCalendar={spec.replace('%', '%%')}\n"
        case _:
            assert_never(run.when)
    return (
        "[Unit]\n"
        f"Description={when}: loopwright: {_one_line(run.prompt)}\n\n"
        "[Timer]\n"
        f"{trigger}"
        # A run missed while the machine was off (or asleep) happens when it is back.
        "Persistent=true\n"
        f"Unit={run.name}.service\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )


_AT = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


def parse_at(text: str) -> Calendar:
    """``--at HH:MM`` (24-hour clock, local time): every day at that time."""
    matched = _AT.fullmatch(text.strip())
    if matched is None:
        raise ValueError(f"--at {text!r} is not a time of day; write HH:MM, e.g. 03:00 or 17:30")
    hour, minute = int(matched[1]), int(matched[2])
    return Calendar(f"*-*-* {hour:02d}:{minute:02d}:00", f"{minute} {hour} * * *")


def parse_on_calendar(text: str) -> Calendar:
    """``--on-calendar SPEC``: systemd's calendar syntax, checked by systemd-analyze when
    it is there (cron cannot take it: use --at or --every with --cron)."""
    spec = " ".join(text.split())
    if not spec or "\n" in text:
        raise ValueError("--on-calendar needs a systemd calendar spec, e.g. 'Mon..Fri 09:00'")
    analyze = shutil.which("systemd-analyze")
    if analyze is not None:
        checked = subprocess.run(
            [analyze, "calendar", spec], capture_output=True, text=True, check=False, timeout=30
        )
        if checked.returncode != 0:
            detail = checked.stderr.strip().splitlines()[-1] if checked.stderr.strip() else ""
            raise ValueError(
                f"--on-calendar {spec!r} is not a systemd calendar spec ({detail}); see "
                "`man systemd.time`, e.g. 'daily', 'Mon..Fri 09:00', '*-*-01 03:00'"
            )
    return Calendar(spec, None)


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return (flat[:60] + "…" if len(flat) > 60 else flat).replace("%", "%%")


def cron_schedule(seconds: int) -> str:
    """The five cron fields for "every ``seconds``"; only intervals cron can express evenly."""
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if seconds % 86400 == 0 and days == 1:
        return "0 0 * * *"
    if seconds % 3600 == 0 and hours < 24 and 24 % hours == 0:
        return "0 * * * *" if hours == 1 else f"0 */{hours} * * *"
    if seconds % 60 == 0 and minutes < 60 and 60 % minutes == 0:
        return "* * * * *" if minutes == 1 else f"*/{minutes} * * * *"
    raise ValueError(
        f"cron cannot run something every {seconds} s evenly; use a whole number of minutes "
        "dividing an hour, of hours dividing a day, or 1d — or use the systemd timer"
    )


# cron starts jobs with an almost empty environment: the same env file as the systemd unit
# is loaded (exported) when it exists, so API keys and LOOPWRIGHT_MODEL reach the run.
CRON_ENV_LOADER = (
    'if [ -r "$HOME/.config/loopwright/env" ]; then set -a; '
    '. "$HOME/.config/loopwright/env"; set +a; fi;'
)


def _cron_fields(when: When) -> str:
    match when:
        case Every(seconds=seconds):
            return cron_schedule(seconds)
        case Calendar(cron=str() as fields):
            return fields
        case Calendar(spec=spec):
            raise ValueError(
                f"cron cannot take the systemd calendar spec {spec!r}; use --at HH:MM or "
                "--every with --cron, or the systemd timer (drop --cron)"
            )
        case _:
            assert_never(when)


def cron_line(run: ScheduledRun) -> str:
    if any("\n" in word or "\r" in word for word in run.argv()):
        raise ValueError(
            "a crontab line cannot hold a line break, and the prompt (or --until) has one: "
            "put it on one line, or use the systemd timer (drop --cron)"
        )
    log = run.cwd / ".loopwright-schedule.log"
    command = f"cd {shlex.quote(str(run.cwd))} && {CRON_ENV_LOADER} "
    command += " ".join(shlex.quote(w) for w in run.argv())
    command += f" >> {shlex.quote(str(log))} 2>&1"
    # cron turns an unescaped % into a newline.
    return f"{_cron_fields(run.when)} {command.replace('%', chr(92) + '%')}"


def systemd_user_dir() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loopwright schedule",
        description="Install a recurring agent run. Agent flags go after `--`, e.g. "
        "`-- --model sonnet --permission-mode acceptEdits`.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    install = commands.add_parser("install", help="write a systemd user timer (or a cron line)")
    install.add_argument("prompt")
    when = install.add_mutually_exclusive_group(required=True)
    when.add_argument("--every", metavar="INTERVAL", help="e.g. 15m, 1h, 1d")
    when.add_argument("--at", metavar="HH:MM", help="every day at this time, e.g. 03:00")
    when.add_argument(
        "--on-calendar", metavar="SPEC", help="a systemd calendar spec, e.g. 'Mon..Fri 09:00'"
    )
    install.add_argument("--cwd", help="directory to run in (default: current)")
    install.add_argument("--until", metavar="CMD", help="each firing loops until CMD exits 0")
    install.add_argument("--name", help="unit name (default: from the prompt)")
    install.add_argument("--cron", action="store_true", help="print a crontab line instead")
    install.add_argument("--dry-run", action="store_true", help="print the units, write nothing")
    install.add_argument("--enable", action="store_true", help="also run systemctl --user enable")
    commands.add_parser("list", help="the runs `install` wrote as systemd user timers")
    remove = commands.add_parser("remove", help="stop a scheduled run and delete its units")
    remove.add_argument("name", help="the unit name `schedule list` shows")
    remove.add_argument("--dry-run", action="store_true", help="say what would go")
    return parser


def _when(args: argparse.Namespace) -> When:
    if args.at is not None:
        return parse_at(args.at)
    if args.on_calendar is not None:
        return parse_on_calendar(args.on_calendar)
    seconds = parse_duration(args.every)
    if seconds < 60 or seconds != int(seconds):
        raise ValueError("--every must be a whole number of seconds, at least 1m, for a schedule")
    return Every(int(seconds))


def _scheduled_run(args: argparse.Namespace, agent_args: Sequence[str]) -> ScheduledRun:
    cwd = Path(args.cwd or os.getcwd()).resolve()
    return ScheduledRun(
        name=args.name or unit_name(args.prompt, cwd),
        prompt=args.prompt,
        when=_when(args),
        cwd=cwd,
        until=args.until,
        agent_args=tuple(agent_args),
    )


def _install(run: ScheduledRun, *, dry_run: bool, enable: bool) -> int:
    service, timer = service_unit(run), timer_unit(run)
    if dry_run:
        print(f"# {run.name}.service\n{service}\n# {run.name}.timer\n{timer}", end="")
        return 0
    directory = systemd_user_dir()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{run.name}.service").write_text(service, encoding="utf-8")
    (directory / f"{run.name}.timer").write_text(timer, encoding="utf-8")
    enable_commands = [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", f"{run.name}.timer"],
    ]
    print(f"wrote {directory / run.name}.service and .timer")
    print(f"API keys for the run go in {ENV_FILE_HINT} (VAR=value lines)")
    if not enable:
        print("start it with:\n  " + "\n  ".join(" ".join(c) for c in enable_commands))
        return 0
    for command in enable_commands:
        done = subprocess.run(command, check=False)
        if done.returncode != 0:
            print(f"`{' '.join(command)}` failed (exit {done.returncode})", file=sys.stderr)
            return 1
    return 0


def schedule_command(argv: Sequence[str]) -> int:
    arguments = list(argv)
    # Everything after `--` is passed to each run untouched.
    split = arguments.index("--") if "--" in arguments else len(arguments)
    args = _parser().parse_args(arguments[:split])
    if args.command == "list":
        return list_command(systemd_user_dir())
    if args.command == "remove":
        return remove_command(systemd_user_dir(), args.name, dry_run=args.dry_run)
    try:
        run = _scheduled_run(args, arguments[split + 1 :])
        run.check_arguments()
        if args.cron:
            print(cron_line(run))
            return 0
        return _install(run, dry_run=args.dry_run, enable=args.enable)
    except ValueError as exc:
        print(f"loopwright schedule: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
