"""The bubblewrap sandbox really confines commands (skipped without bwrap; see conftest)."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loopwright.errors import ConfigurationError
from loopwright.sandbox import BwrapSandbox, SandboxSettings, check_available
from loopwright.tools.base import SessionState, ToolContext, ToolServices
from loopwright.tools.bash import BashTool

pytestmark = pytest.mark.skipif(
    os.environ.get("LOOPWRIGHT_SKIP_SANDBOX_TESTS") == "1",
    reason="sandbox tests disabled by LOOPWRIGHT_SKIP_SANDBOX_TESTS",
)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def sandbox(workdir: Path, tmp_path: Path) -> Iterator[BwrapSandbox]:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=tmp_path / "home")
    yield box
    box.close()


def run(box: BwrapSandbox, script: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    argv, sandbox_env = box.wrap(["bash", "-c", script], env or dict(os.environ), str(cwd))
    done = subprocess.run(argv, env=sandbox_env, capture_output=True, text=True, timeout=30)
    return done.stdout + done.stderr


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


@pytest.fixture
def http_server() -> Iterator[int]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"hello from the host"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()


def test_the_working_dir_is_writable(sandbox: BwrapSandbox, workdir: Path) -> None:
    out = run(sandbox, "echo data > made.txt && cat made.txt", workdir)
    assert out.strip() == "data"
    assert (workdir / "made.txt").read_text() == "data\n"


def test_a_write_outside_the_working_dir_is_blocked(
    sandbox: BwrapSandbox, workdir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "outside.txt"
    home_target = Path.home() / f".loopwright-sandbox-probe-{os.getpid()}"
    out = run(sandbox, f"echo x > {target}; echo y > {home_target}; echo z > /usr/probe", workdir)
    assert not target.exists() and not home_target.exists()
    assert not Path("/usr/probe").exists()
    assert "Read-only file system" in out


def test_temp_dir_is_private_and_writable(sandbox: BwrapSandbox, workdir: Path) -> None:
    out = run(sandbox, 'echo t > "$TMPDIR/scratch" && cat "$TMPDIR/scratch"', workdir)
    assert out.strip() == "t"


def test_network_to_a_host_listener_is_blocked(
    sandbox: BwrapSandbox, workdir: Path, listener: int
) -> None:
    probe = (
        "import socket; s = socket.socket(); s.settimeout(2)\n"
        f"try:\n  s.connect(('127.0.0.1', {listener})); print('CONNECTED')\n"
        "except OSError as e:\n  print('BLOCKED', e)\n"
    )
    out = run(sandbox, f'python3 -c "{probe}"', workdir)
    assert "BLOCKED" in out and "CONNECTED" not in out


def test_env_vars_are_dropped_unless_allowlisted(workdir: Path, tmp_path: Path) -> None:
    settings = SandboxSettings(env_allowlist=("GITHUB_TOKEN", "HARMLESS"))
    box = BwrapSandbox(settings, [workdir], home=tmp_path / "home")
    try:
        env = {
            **os.environ,
            "OPENAI_API_KEY": "sk",
            "GITHUB_TOKEN": "gh",
            "MY_SECRET": "s",
            "HARMLESS": "ok",
        }
        out = run(box, "env", workdir, env)
    finally:
        box.close()
    assert "HARMLESS=ok" in out and "GITHUB_TOKEN=gh" in out
    assert "OPENAI_API_KEY" not in out and "MY_SECRET" not in out


def test_secret_paths_are_masked(workdir: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
    (home / ".netrc").write_text("machine x password y")
    box = BwrapSandbox(SandboxSettings(), [workdir], home=home)
    try:
        out = run(box, f"ls {home}/.ssh; cat {home}/.netrc; echo done", workdir)
    finally:
        box.close()
    assert "id_rsa" not in out and "password" not in out and "done" in out


def test_allowlisted_domain_goes_through_the_proxy(
    workdir: Path, tmp_path: Path, http_server: int
) -> None:
    box = BwrapSandbox(
        SandboxSettings(allowed_domains=("127.0.0.1",)), [workdir], home=tmp_path / "home"
    )
    try:
        fetch = (
            "import urllib.request, sys\n"
            "try:\n"
            "  print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())\n"
            "except Exception as e:\n"
            "  print('FAILED', e)\n"
        )
        script_path = workdir / "fetch.py"
        script_path.write_text(fetch)
        allowed = run(box, f"python3 fetch.py http://127.0.0.1:{http_server}/", workdir)
        refused = run(box, f"python3 fetch.py http://localhost:{http_server}/", workdir)
    finally:
        box.close()
    assert "hello from the host" in allowed
    assert "FAILED" in refused and "403" in refused


async def test_bash_tool_runs_through_the_wrapper(sandbox: BwrapSandbox, workdir: Path) -> None:

    ctx = ToolContext(
        state=SessionState(cwd=workdir),
        tool_use_id="t1",
        services=ToolServices(command_wrapper=sandbox),
    )
    # Outside the working dirs and the private scratch dir, everything is read-only.
    outside = Path("/var/tmp") / f".loopwright-escape-{os.getpid()}"  # read-only inside

    await BashTool().call({"command": "mkdir sub && cd sub && echo hi > f"}, ctx)
    blocked = str((await BashTool().call({"command": f"echo x > {outside}"}, ctx)).content)
    assert (workdir / "sub" / "f").read_text() == "hi\n"
    assert ctx.state.cwd == (workdir / "sub").resolve()
    assert not outside.exists() and "Read-only file system" in blocked


@pytest.mark.without_bwrap
def test_missing_bwrap_is_a_clear_configuration_error(workdir: Path) -> None:
    with pytest.raises(ConfigurationError, match="apt-get install bubblewrap"):
        check_available("/nonexistent/bwrap")
    with pytest.raises(ConfigurationError, match="allow_unsandboxed=True"):
        BwrapSandbox(SandboxSettings(), [workdir], bwrap="/nonexistent/bwrap")


@pytest.mark.without_bwrap
def test_opt_in_unsandboxed_fallback_still_filters_env(workdir: Path) -> None:
    box = BwrapSandbox(
        SandboxSettings(allow_unsandboxed=True), [workdir], bwrap="/nonexistent/bwrap"
    )
    try:
        argv, env = box.wrap(["true"], {"A_TOKEN": "x", "B": "y", "LANG": "C"}, str(workdir))
    finally:
        box.close()
    assert argv == ["true"] and env == {"LANG": "C"}


def test_agent_and_git_config_stay_read_only_in_the_working_dir(
    sandbox: BwrapSandbox, workdir: Path
) -> None:
    (workdir / ".git" / "hooks").mkdir(parents=True)
    (workdir / ".claude").mkdir()
    (workdir / ".claude" / "settings.json").write_text("{}")
    out = run(
        sandbox,
        "echo evil > .git/hooks/pre-commit; echo '{\"x\":1}' > .claude/settings.json;"
        " echo fine > ok.txt",
        workdir,
    )
    assert not (workdir / ".git" / "hooks" / "pre-commit").exists()
    assert (workdir / ".claude" / "settings.json").read_text() == "{}"
    assert (workdir / "ok.txt").read_text() == "fine\n"
    assert "Read-only file system" in out


@pytest.fixture
def host_unix_socket(tmp_path: Path) -> Iterator[str]:
    """A Unix socket served on the host, like a Docker daemon or an ssh-agent."""
    path = str(tmp_path / "host.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(4)

    def serve() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            client.sendall(b"host-only")
            client.close()

    threading.Thread(target=serve, daemon=True).start()
    yield path
    server.close()


_CONNECT = (
    "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{path}'); "
    'print(s.recv(20).decode())"'
)


def test_a_host_unix_socket_cannot_be_reached(
    sandbox: BwrapSandbox, workdir: Path, host_unix_socket: str
) -> None:
    output = run(sandbox, _CONNECT.format(path=host_unix_socket), workdir)
    assert "host-only" not in output and "Operation not permitted" in output
    # Ordinary commands and socketpair-based IPC keep working under the filter.
    assert "ok" in run(
        sandbox, "python3 -c 'import socket; socket.socketpair(); print(\"ok\")'", workdir
    )


def test_unix_sockets_can_be_allowed_explicitly(
    workdir: Path, tmp_path: Path, host_unix_socket: str
) -> None:
    settings = SandboxSettings(allow_unix_sockets=True)
    box = BwrapSandbox(settings, [workdir], home=tmp_path / "home")
    try:
        assert "host-only" in run(box, _CONNECT.format(path=host_unix_socket), workdir)
    finally:
        box.close()


def test_credentials_under_other_names_are_dropped_too(workdir: Path, tmp_path: Path) -> None:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=tmp_path / "home")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "NPM_AUTH": "a",
        "SENTRY_DSN": "https://k@sentry",
        "DATABASE_URL": "postgres://u:p@h/db",
        "GH_PAT": "p",
        "SSH_AUTH_SOCK": "/tmp/agent",
        "AWS_SESSION_EXPIRATION": "x",
        "HARMLESS": "ok",
        "LANG": "C.UTF-8",
    }
    kept = box.filter_env(env)
    box.close()
    assert set(kept) == {"PATH", "LANG"}


def test_hook_managers_and_submodule_hooks_stay_read_only(
    sandbox: BwrapSandbox, workdir: Path
) -> None:
    (workdir / ".husky").mkdir()
    (workdir / ".git" / "modules" / "sub" / "hooks").mkdir(parents=True)
    (workdir / ".pre-commit-config.yaml").write_text("repos: []\n")
    run(
        sandbox,
        "echo evil > .husky/pre-commit; echo evil > .git/modules/sub/hooks/post-checkout;"
        " echo 'repos: [{repo: local}]' > .pre-commit-config.yaml",
        workdir,
    )
    assert not (workdir / ".husky" / "pre-commit").exists()
    assert not (workdir / ".git" / "modules" / "sub" / "hooks" / "post-checkout").exists()
    assert (workdir / ".pre-commit-config.yaml").read_text() == "repos: []\n"
