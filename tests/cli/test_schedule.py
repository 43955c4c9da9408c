"""``loopwright schedule install``: systemd user units (or a cron line) for recurring runs."""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from loopwright.cli.schedule import CRON_ENV_LOADER, cron_schedule

CLI = [sys.executable, "-m", "loopwright.cli.main"]
AWKWARD_PROMPT = 'fix 100% of the "flaky" tests in $HOME\\src'


def schedule(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    return subprocess.run(
        [*CLI, "schedule", "install", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )


def test_dry_run_prints_a_service_and_timer_and_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    dry = schedule(
        "check the build", "--every", "1h", "--dry-run", "--cwd", str(project), cwd=tmp_path
    )
    assert dry.returncode == 0, dry.stderr
    assert "[Service]" in dry.stdout and "[Timer]" in dry.stdout
    assert f"WorkingDirectory={project}" in dry.stdout
    assert "OnUnitActiveSec=3600s" in dry.stdout
    assert (
        f'ExecStart="{sys.executable}" "-m" "loopwright.cli.main" "-p" "check the build"'
        in dry.stdout
    )
    assert "EnvironmentFile=-%h/.config/loopwright/env" in dry.stdout
    assert not (tmp_path / "config").exists()


def test_install_writes_user_units_that_pass_the_arguments_through(tmp_path: Path) -> None:
    done = schedule(
        "keep tests green",
        "--every",
        "30m",
        "--until",
        "make test",
        "--name",
        "green",
        "--",
        "--permission-mode",
        "acceptEdits",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    units = tmp_path / "config" / "systemd" / "user"
    service = (units / "green.service").read_text()
    timer = (units / "green.timer").read_text()
    assert '"loop" "keep tests green" "--until" "make test"' in service
    assert '"--permission-mode" "acceptEdits"' in service
    assert "OnUnitActiveSec=1800s" in timer and "Unit=green.service" in timer
    assert "systemctl --user enable --now green.timer" in done.stdout


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_units_with_awkward_characters_are_valid_systemd(tmp_path: Path) -> None:
    done = schedule(AWKWARD_PROMPT, "--every", "1d", "--name", "awkward", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    units = tmp_path / "config" / "systemd" / "user"
    service = (units / "awkward.service").read_text()
    assert "100%% of" in service and "$$HOME" in service and '\\"flaky\\"' in service
    verified = subprocess.run(
        ["systemd-analyze", "verify", str(units / "awkward.service"), str(units / "awkward.timer")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "Failed to initialize manager" in verified.stderr:
        pytest.skip("systemd-analyze cannot run here")
    assert verified.returncode == 0, verified.stderr


def test_cron_line_runs_the_prompt_in_the_directory(tmp_path: Path) -> None:
    done = schedule(AWKWARD_PROMPT, "--every", "15m", "--cron", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("*/15 * * * * cd ")
    assert "100%" not in line  # cron would turn a bare % into a newline
    command = line.split(" ", 5)[5].replace("\\%", "%")
    words = shlex.split(command.replace(CRON_ENV_LOADER, ""))
    assert words[:3] == ["cd", str(tmp_path.resolve()), "&&"]
    assert words[3:8] == [sys.executable, "-m", "loopwright.cli.main", "-p", AWKWARD_PROMPT]


def test_an_interval_cron_cannot_express_is_refused(tmp_path: Path) -> None:
    done = schedule("x", "--every", "7m", "--cron", cwd=tmp_path)
    assert done.returncode == 2
    assert "cron cannot run something every 420 s" in done.stderr


@pytest.mark.parametrize(
    ("seconds", "fields"),
    [
        (60, "* * * * *"),
        (600, "*/10 * * * *"),
        (3600, "0 * * * *"),
        (6 * 3600, "0 */6 * * *"),
        (86400, "0 0 * * *"),
    ],
)
def test_cron_fields(seconds: int, fields: str) -> None:
    assert cron_schedule(seconds) == fields


@pytest.mark.parametrize("until", [None, "make test", "-x-check"])
def test_a_prompt_starting_with_a_dash_reaches_each_run_as_the_prompt(
    tmp_path: Path, until: str | None
) -> None:
    from loopwright.cli.main import build_parser
    from loopwright.cli.outer_loop import loop_parser
    from loopwright.cli.schedule import Every, ScheduledRun

    run = ScheduledRun(
        name="dash",
        prompt="-v fix the failing test",
        when=Every(3600),
        cwd=tmp_path,
        until=until,
        agent_args=("--max-turns", "3"),
    )
    arguments = run.argv()[3:]
    if until is None:
        args = build_parser().parse_args(arguments)
        assert args.prompt == "-v fix the failing test"
    else:
        args = loop_parser().parse_args(arguments[1:])
        assert (args.loop_prompt, args.until) == ("-v fix the failing test", until)
    assert args.max_turns == 3


def test_agent_flags_every_run_would_reject_are_refused_at_install(tmp_path: Path) -> None:
    done = schedule("check", "--every", "1h", "--", "--max-turnz", "3", cwd=tmp_path)
    assert done.returncode == 2
    assert "--max-turnz" in done.stderr and "nothing was installed" in done.stderr
    assert not (tmp_path / "config").exists()


def test_a_prompt_with_a_line_break_is_refused_for_cron(tmp_path: Path) -> None:
    done = schedule("first line\nsecond line", "--every", "1h", "--cron", cwd=tmp_path)
    assert done.returncode == 2
    assert "line break" in done.stderr and "systemd timer" in done.stderr
    assert done.stdout == ""


def test_at_a_time_of_day_is_a_persistent_calendar_timer(tmp_path: Path) -> None:
    done = schedule("nightly triage", "--at", "03:00", "--dry-run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "OnCalendar=*-*-* 03:00:00" in done.stdout
    assert "Persistent=true" in done.stdout
    assert "OnUnitActiveSec" not in done.stdout


def test_on_calendar_passes_a_systemd_spec_through(tmp_path: Path) -> None:
    done = schedule("weekday check", "--on-calendar", "Mon..Fri 09:00", "--dry-run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "OnCalendar=Mon..Fri 09:00" in done.stdout and "Persistent=true" in done.stdout


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_an_invalid_calendar_spec_is_refused_with_where_to_look(tmp_path: Path) -> None:
    done = schedule("x", "--on-calendar", "every other blue moon", "--dry-run", cwd=tmp_path)
    assert done.returncode == 2
    assert "is not a systemd calendar spec" in done.stderr and "man systemd.time" in done.stderr


@pytest.mark.parametrize("bad", ["3am", "24:00", "7:5", "12:60"])
def test_a_time_that_is_not_hh_mm_is_refused(tmp_path: Path, bad: str) -> None:
    done = schedule("x", "--at", bad, "--dry-run", cwd=tmp_path)
    assert done.returncode == 2
    assert "write HH:MM" in done.stderr


def test_cron_at_a_time_of_day_loads_the_env_file(tmp_path: Path) -> None:
    done = schedule("nightly", "--at", "3:05", "--cron", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith("5 3 * * * cd ")
    assert '. "$HOME/.config/loopwright/env"' in line


def test_the_cron_line_really_exports_the_env_file_to_the_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "loopwright").mkdir(parents=True)
    (home / ".config" / "loopwright" / "env").write_text("LOOPWRIGHT_PROBE=from-env-file\n")
    command = f"cd {shlex.quote(str(tmp_path))} && {CRON_ENV_LOADER} printenv LOOPWRIGHT_PROBE"
    ran = subprocess.run(
        ["/bin/sh", "-c", command],
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert ran.stdout.strip() == "from-env-file"


def test_cron_cannot_take_a_calendar_spec(tmp_path: Path) -> None:
    done = schedule("x", "--on-calendar", "Mon..Fri 09:00", "--cron", cwd=tmp_path)
    assert done.returncode == 2
    assert "use --at HH:MM or --every" in done.stderr


def test_exactly_one_of_every_at_and_on_calendar(tmp_path: Path) -> None:
    none = schedule("x", "--dry-run", cwd=tmp_path)
    both = schedule("x", "--every", "1h", "--at", "03:00", "--dry-run", cwd=tmp_path)
    assert none.returncode == 2 and "one of the arguments --every --at --on-calendar" in none.stderr
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def _schedule_cmd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    return subprocess.run(
        [*CLI, "schedule", *args], cwd=cwd, capture_output=True, text=True, env=environment
    )


def test_list_shows_installed_runs_and_remove_deletes_their_units(tmp_path: Path) -> None:
    units = tmp_path / "config" / "systemd" / "user"
    units.mkdir(parents=True)
    (units / "other.service").write_text("[Unit]\nDescription=not ours\n")
    assert schedule("nightly review", "--at", "03:00", cwd=tmp_path).returncode == 0
    (name,) = [p.stem for p in units.glob("loopwright-*.service")]

    listed = _schedule_cmd("list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert name in listed.stdout and "nightly review" in listed.stdout
    assert "other" not in listed.stdout

    removed = _schedule_cmd("remove", name, cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert not list(units.glob("loopwright-*"))
    assert (units / "other.service").exists()


def test_removing_an_unknown_run_says_how_to_find_the_names(tmp_path: Path) -> None:
    done = _schedule_cmd("remove", "loopwright-nope", cwd=tmp_path)
    assert done.returncode == 1
    assert "schedule list" in done.stderr
