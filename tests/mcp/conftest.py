"""Fixtures for the MCP tests: real servers only (python MCPServer scripts, npm servers).

No ``__init__.py`` here on purpose: a package named ``mcp`` would shadow the real one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_support import NPM_DIR, NPM_PACKAGES, REPO, HttpDemoServer

from loopwright.tools.base import SessionState, ToolContext
from system_deps import missing_system_dependency, require_program


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(SessionState(tmp_path), "toolu_test")


@pytest.fixture(scope="session")
def npm_servers() -> Path:
    """The npm reference servers, installed by scripts/install-mcp-servers.sh if missing."""
    wanted = [NPM_PACKAGES / "server-filesystem", NPM_PACKAGES / "server-everything"]
    if not all((p / "dist" / "index.js").exists() for p in wanted):
        require_program("node", purpose="running the npm MCP reference servers")
        require_program("npm", purpose="installing the npm MCP reference servers")
        script = REPO / "scripts" / "install-mcp-servers.sh"
        done = subprocess.run(
            [str(script), str(NPM_DIR)], capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            missing_system_dependency(
                "could not install the npm MCP reference servers (no registry?); run "
                f"scripts/install-mcp-servers.sh: {done.stderr.strip()[-500:]}"
            )
    return NPM_PACKAGES


@pytest.fixture
def http_server() -> Iterator[HttpDemoServer]:
    server = HttpDemoServer("streamable-http")
    yield server
    server.stop()


@pytest.fixture
def sse_server() -> Iterator[HttpDemoServer]:
    server = HttpDemoServer("sse")
    yield server
    server.stop()
