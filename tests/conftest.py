"""Suite-wide fixtures: an isolated LOOPWRIGHT_HOME and HOME for every test, and one real
PostgreSQL server for the tests that need it.

The server is started with the distribution's ``initdb`` / ``pg_ctl`` on a free 127.0.0.1
port with its unix socket in a temp dir, and stopped afterwards. PostgreSQL refuses to run
as root, so under root it runs as the ``postgres`` system user (created if missing).
"""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from system_deps import missing_system_dependency


@pytest.fixture(autouse=True)
def isolated_loopwright_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Transcripts of test sessions go to a temporary home, never to ~/.loopwright."""
    home = tmp_path_factory.mktemp("loopwright-home")
    monkeypatch.setenv("LOOPWRIGHT_HOME", str(home))
    # User settings (~/.claude, ~/.loopwright) of whoever runs the suite must not leak in.
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("user-home")))
    yield home


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_user() -> str | None:
    """None when we are not root; else a user PostgreSQL agrees to run as."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/bin/sh", "postgres"],
            check=True,
            capture_output=True,
        )
    return "postgres"


def _as(user: str | None, command: list[str]) -> list[str]:
    return command if user is None else ["runuser", "-u", user, "--", *command]


@pytest.fixture(scope="session")
def postgres_port() -> Iterator[int]:
    """A real PostgreSQL server for the whole test session (user ``postgres``, trust auth),
    shared by the session-store and durable-run tests; yields its 127.0.0.1 port."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        missing_system_dependency(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install postgresql"
        )
    pytest.importorskip("psycopg", reason="psycopg 3 is not installed: pip install psycopg")
    user = _server_user()
    # Not under pytest's tmp dir: that is root-only (0700) and the server user must enter.
    base = Path(tempfile.mkdtemp(prefix="loopwright-pg-"))
    if user is not None:
        shutil.chown(base, user)
    data, log = base / "data", base / "server.log"
    port = _free_port()
    subprocess.run(
        _as(user, [initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]),
        check=True,
        capture_output=True,
    )
    options = f"-h 127.0.0.1 -p {port} -k {base} -F -c max_connections=150"
    started = subprocess.run(
        _as(user, [pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "start"]),
        capture_output=True,
        text=True,
    )
    if started.returncode != 0:
        detail = log.read_text() if log.exists() else started.stderr
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {detail}")
    try:
        yield port
    finally:
        subprocess.run(
            _as(user, [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(base, ignore_errors=True)
