"""Secrets stay out of the sandbox: the environment is an allow-list, credential files
under HOME are masked, and every path a floating Read deny pattern matches is masked.
Each command runs in real bubblewrap."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopwright import query
from loopwright.messages import ToolResultBlock, UserMessage
from loopwright.permissions.paths.credential_files import CREDENTIAL_FILES
from loopwright.permissions.rules import parse_rule
from loopwright.sandbox import BwrapSandbox, SandboxSettings
from loopwright.sandbox.deny_masks import FloatingMasks
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.command_wrapper import CommandWrapper
from support import base_options

from .host import requires_sandbox

pytestmark = requires_sandbox

SECRET = "hunter2-credential"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def run(box: BwrapSandbox | CommandWrapper, script: str, cwd: Path, env: dict[str, str]) -> str:
    argv, sandbox_env = box.wrap(["bash", "-c", script], env, str(cwd))
    done = subprocess.run(argv, env=sandbox_env, capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


HOST_SECRETS = {
    "MYSQL_PWD": "pw-mysql",
    "CI_JOB_TOKEN": "glcbt-abc",
    "REDIS_URL": "redis://:pw-redis@cache:6379/0",
    "HTTPS_PROXY": "http://user:pw-proxy@proxy:3128",
    "PGPASSWORD": "pw-pg",
    "ANTHROPIC_API_KEY": "sk-ant-x",
    "VAULT_ADDR": "https://vault",
    "SENTRY_DSN": "https://k@sentry",
    "ACTIONS_RUNTIME_TOKEN": "gh-runtime",
    "BUILDKITE_AGENT_ACCESS_TOKEN": "bk",
    "npm_config__authToken": "npm-tok",
}


def test_the_environment_is_an_allow_list(workdir: Path, tmp_path: Path) -> None:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=tmp_path / "home")
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "LC_ALL": "C", **HOST_SECRETS}
    try:
        out = run(box, "env", workdir, env)
    finally:
        box.close()
    assert "LANG=C.UTF-8" in out and "LC_ALL=C" in out and "PATH=" in out
    leaked = [value for value in HOST_SECRETS.values() if value in out]
    assert leaked == []


def test_the_allow_list_is_extended_by_settings(workdir: Path, tmp_path: Path) -> None:
    settings = SandboxSettings(env_allowlist=("MYSQL_PWD", "MY_TOOL_*"))
    box = BwrapSandbox(settings, [workdir], home=tmp_path / "home")
    env = {"PATH": os.environ["PATH"], "MY_TOOL_MODE": "fast", "OTHER": "x", **HOST_SECRETS}
    try:
        out = run(box, "env", workdir, env)
    finally:
        box.close()
    assert "MYSQL_PWD=pw-mysql" in out and "MY_TOOL_MODE=fast" in out
    assert "OTHER=x" not in out and "pw-redis" not in out


def test_variables_the_session_sets_pass_the_allow_list(workdir: Path, tmp_path: Path) -> None:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=tmp_path / "home")
    wrapper = CommandWrapper({"PROJECT_MODE": "ci"}, box)
    try:
        out = run(wrapper, "env", workdir, {"PATH": os.environ["PATH"], **HOST_SECRETS})
    finally:
        box.close()
    assert "PROJECT_MODE=ci" in out and "pw-mysql" not in out


@pytest.fixture
def home_with_credentials(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for entry in CREDENTIAL_FILES:
        path = home / entry.removeprefix("~/")
        # Entries without a suffix may be directories (~/.ssh, ~/.aws): plant a file in one.
        target = path / "secret" if entry in ("~/.ssh", "~/.aws", "~/.kube") else path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"{SECRET} {entry}\n")
    return home


def test_every_credential_file_under_home_is_masked(
    workdir: Path, home_with_credentials: Path
) -> None:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=home_with_credentials)
    script = f"grep -r . {home_with_credentials} 2>/dev/null; echo scanned"
    try:
        out = run(box, script, workdir, {"PATH": os.environ["PATH"]})
    finally:
        box.close()
    assert "scanned" in out
    assert [line for line in out.splitlines() if SECRET in line] == []


@pytest.mark.parametrize(
    "entry",
    [
        "~/.config/loopwright/env",
        "~/.git-credentials",
        "~/.config/git/credentials",
        "~/.pgpass",
        "~/.cargo/credentials.toml",
        "~/.docker/config.json",
    ],
)
def test_named_credential_files_read_as_empty(
    workdir: Path, home_with_credentials: Path, entry: str
) -> None:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=home_with_credentials)
    path = home_with_credentials / entry.removeprefix("~/")
    try:
        out = run(box, f"cat {path}; echo end", workdir, {"PATH": os.environ["PATH"]})
    finally:
        box.close()
    assert SECRET not in out and "end" in out


def floating_box(workdir: Path, home: Path, *patterns: str) -> BwrapSandbox:
    rules = [parse_rule(f"Read({p})", "deny") for p in patterns]
    floating = FloatingMasks.from_rules(rules, [workdir], home)
    return BwrapSandbox(SandboxSettings(), [workdir], home=home, floating_masks=floating)


@pytest.fixture
def tree(workdir: Path) -> Iterator[Path]:
    for relative in (".env", "sub/deep/.env", "certs/server.pem", "a/b/c/key.pem"):
        path = workdir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{SECRET} {relative}\n")
    (workdir / "readme.txt").write_text("public\n")
    yield workdir


@pytest.mark.parametrize(
    "patterns",
    [("**/.env", "*.pem"), (".env", "**/*.pem"), ("**/.env", "**/*.pem")],
)
def test_paths_floating_deny_patterns_match_are_masked(
    tree: Path, tmp_path: Path, patterns: tuple[str, ...]
) -> None:
    box = floating_box(tree, tmp_path / "home", *patterns)
    try:
        out = run(box, "grep -r . . 2>/dev/null; echo end", tree, {"PATH": os.environ["PATH"]})
    finally:
        box.close()
    assert "public" in out and "end" in out
    assert [line for line in out.splitlines() if SECRET in line] == []


def test_a_file_made_after_the_session_started_is_masked_at_the_next_command(
    tree: Path, tmp_path: Path
) -> None:
    box = floating_box(tree, tmp_path / "home", "**/.env")
    later = tree / "new" / ".env"
    try:
        run(box, "true", tree, {"PATH": os.environ["PATH"]})
        later.parent.mkdir()
        later.write_text(f"{SECRET} later\n")
        out = run(box, f"cat {later}; echo end", tree, {"PATH": os.environ["PATH"]})
    finally:
        box.close()
    assert SECRET not in out and "end" in out


def test_a_symlink_loop_named_like_a_secret_does_not_break_commands(
    tree: Path, tmp_path: Path
) -> None:
    os.symlink(tree / "loop" / ".env", tree / "loop.env")
    (tree / "loop").mkdir()
    os.symlink(tree / "loop" / ".env", tree / "loop" / ".env")
    box = floating_box(tree, tmp_path / "home", "**/.env")
    try:
        out = run(box, "echo still-runs", tree, {"PATH": os.environ["PATH"]})
    finally:
        box.close()
    assert "still-runs" in out


async def test_floating_deny_rules_are_masked_in_a_session(tree: Path) -> None:
    # The path is put together at run time, so only the sandbox's mask keeps it out.
    (tree / "reader.py").write_text(
        "import pathlib\nfor p in pathlib.Path('.').rglob('*'):\n"
        "    print(p, p.read_text() if p.is_file() else '')\n"
    )
    model = ScriptedModel([tool_call("Bash", command="python3 reader.py"), text("ok")])
    opts = base_options(
        model,
        cwd=tree,
        tools=["Bash"],
        sandbox=SandboxSettings(),
        disallowed_tools=["Read(**/.env)", "Read(*.pem)"],
    )
    outputs = [
        block.text
        async for message in query("go", opts)
        if isinstance(message, UserMessage)
        for block in message.blocks
        if isinstance(block, ToolResultBlock)
    ]
    [out] = outputs
    assert "public" in out and SECRET not in out
