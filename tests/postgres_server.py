"""A real PostgreSQL server on a free 127.0.0.1 port, for the tests that need one.

Started with the distribution's ``initdb`` / ``pg_ctl``, its unix socket in a temp dir.
PostgreSQL refuses to run as root, so under root it runs as the ``postgres`` system user
(created if missing). ``stop()`` stops it early (tests of a database that goes away).
"""

from __future__ import annotations

import contextlib
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


class PostgresServer:
    """A running server (user ``postgres``, trust auth) and the means to stop it."""

    def __init__(self, port: int, data: Path, pg_ctl: str, user: str | None) -> None:
        self.port = port
        self._data, self._pg_ctl, self._user = data, pg_ctl, user

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        """Stop at once (``-m immediate``: connections are cut, as in a crash)."""
        subprocess.run(
            _as(self._user, [self._pg_ctl, "-D", str(self._data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
        )


@contextlib.contextmanager
def postgres_server(max_connections: int = 150) -> Iterator[PostgresServer]:
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
    options = f"-h 127.0.0.1 -p {port} -k {base} -F -c max_connections={max_connections}"
    started = subprocess.run(
        _as(user, [pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "start"]),
        capture_output=True,
        text=True,
    )
    if started.returncode != 0:
        detail = log.read_text() if log.exists() else started.stderr
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {detail}")
    server = PostgresServer(port, data, pg_ctl, user)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
