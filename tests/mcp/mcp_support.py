"""Helpers shared by the MCP tests (a plain module: test files import it by name)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "mcp_servers"
DEMO_SERVER = FIXTURES / "demo_server.py"
NPM_DIR = Path(os.environ.get("LOOPWRIGHT_MCP_SERVERS_DIR", REPO / ".mcp-servers"))
NPM_PACKAGES = NPM_DIR / "node_modules" / "@modelcontextprotocol"


def demo_config(**env: str) -> dict[str, object]:
    """The stdio config of the python demo server, run with this interpreter."""
    config: dict[str, object] = {"command": sys.executable, "args": [str(DEMO_SERVER)]}
    if env:
        config["env"] = env
    return config


def child_pids() -> set[int]:
    """Live (non-zombie) child processes of this test process, read from /proc."""
    children: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            children.add(int(entry.name))
    return children


def cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the demo server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the demo server did not listen on 127.0.0.1:{port}")


class HttpDemoServer:
    """The python demo server run over HTTP on 127.0.0.1 in a subprocess."""

    def __init__(self, transport: str) -> None:
        self.port = _free_port()
        self.process = subprocess.Popen(
            [sys.executable, str(DEMO_SERVER), "--transport", transport, "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.port, self.process)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


FULL_SERVER = FIXTURES / "full_server.py"
OAUTH_SERVER = FIXTURES / "oauth_server.py"


def full_config(markers: Path | None = None) -> dict[str, object]:
    """The stdio config of the full-protocol server (resources, prompts, elicitation …)."""
    config: dict[str, object] = {"command": sys.executable, "args": [str(FULL_SERVER)]}
    if markers is not None:
        config["env"] = {"FULL_SERVER_MARKERS": str(markers)}
    return config


class ScriptServer:
    """A python MCP server script run on 127.0.0.1 in a subprocess (HTTP transports)."""

    def __init__(self, script: Path, *args: str, port: int | None = None) -> None:
        self.port = port or _free_port()
        self.process = subprocess.Popen(
            [sys.executable, str(script), *args, "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.port, self.process)

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)
