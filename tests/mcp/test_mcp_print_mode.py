"""Print mode (-p) with a project's .mcp.json: a /mcp__server__prompt command is expanded
before the model sees it, and the resource tools are there (a real CLI subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from mcp_support import REPO, full_config


def run_print(prompt: str, cwd: Path) -> list[dict[str, object]]:
    script = cwd / "script.yaml"
    script.write_text(yaml.safe_dump([{"text": "reviewed"}]))
    (cwd / ".mcp.json").write_text(json.dumps({"mcpServers": {"full": full_config()}}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(REPO / "src")
    command = [sys.executable, "-m", "loopwright.cli.main", "-p", prompt]
    command += ["--model", f"scripted:{script}", "--output-format", "stream-json"]
    done = subprocess.run(
        [*command, "--cwd", str(cwd)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_prompt_command_in_print_mode_sends_the_servers_prompt(tmp_path: Path) -> None:
    lines = run_print("/mcp__full__review Go", tmp_path)
    users = [line for line in lines if line.get("type") == "user"]
    assert "Review this Go code, looking for bugs." in json.dumps(users)
    init = next(line for line in lines if line.get("subtype") == "init")
    assert "ListMcpResources" in json.dumps(init)
    assert {"name": "full", "status": "connected", "tools": 8} in init["mcp_servers"]  # type: ignore[operator]
