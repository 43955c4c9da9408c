"""Lay out the peer SDKs' own examples for a run against loopwright's compat layers.

The examples are not copied into this repository: they are read from a local git mirror of
each peer repository (``LOOPWRIGHT_PEER_MIRRORS``, default ``/work/.mirror``), and written to
a temporary directory with only their import lines rewritten (``agents`` →
``loopwright.compat.openai_agents``, ``claude_agent_sdk`` → ``loopwright.compat.
claude_agent_sdk``). Both repositories are MIT-licensed; their LICENSE is written next to
the examples. ``test_peer_examples`` runs them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

OPENAI_REPO = "openai+openai-agents-python"
CLAUDE_REPO = "anthropics+claude-agent-sdk-python"

_IMPORTS = {
    OPENAI_REPO: (
        re.compile(r"^(\s*)(from|import) agents\b", re.M),
        r"\1\2 loopwright.compat.openai_agents",
    ),
    CLAUDE_REPO: (
        re.compile(r"^(\s*)(from|import) claude_agent_sdk\b", re.M),
        r"\1\2 loopwright.compat.claude_agent_sdk",
    ),
}


def mirror(repo: str) -> Path | None:
    """The git directory of a peer repository's mirror, or None when there is none here."""
    root = Path(os.environ.get("LOOPWRIGHT_PEER_MIRRORS", "/work/.mirror"))
    git_dir = root / repo / "repo"
    return git_dir if (git_dir / "HEAD").exists() else None


def _show(git_dir: Path, path: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"HEAD:{path}"],
        check=True,
        capture_output=True,
    ).stdout


def _files(git_dir: Path, under: str) -> list[str]:
    listed = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", "HEAD", under],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return listed.split()


def rewrite_imports(repo: str, source: str) -> str:
    pattern, replacement = _IMPORTS[repo]
    return pattern.sub(replacement, source)


def materialise(repo: str, directories: list[str], target: Path) -> Path:
    """Write ``directories`` of the peer's ``examples/`` under ``target``, imports rewritten."""
    git_dir = mirror(repo)
    if git_dir is None:
        raise FileNotFoundError(f"no mirror of {repo}")
    (target / "LICENSE").write_bytes(_show(git_dir, "LICENSE"))
    for directory in directories:
        for path in _files(git_dir, directory):
            out = target / path
            out.parent.mkdir(parents=True, exist_ok=True)
            data = _show(git_dir, path)
            if path.endswith(".py"):
                data = rewrite_imports(repo, data.decode("utf-8")).encode("utf-8")
            out.write_bytes(data)
    return target


@dataclass(frozen=True, slots=True)
class Outcome:
    returncode: int
    stdout: str
    stderr: str


def run_example(
    root: Path, module: str, env: dict[str, str], args: tuple[str, ...] = (), timeout: float = 60
) -> Outcome:
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=root,
        env={**env, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Outcome(done.returncode, done.stdout, done.stderr)
