"""Git run by the model sees only the session's repository: a bare repository planted or
shipped in the tree (whose config runs programs) is never used."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from loopwright.tools.bash_process import spawn_shell
from loopwright.tools.git_discovery import pinned_git_env

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def plant_bare_repository(where: Path, marker: Path) -> None:
    """A bare repository whose config runs ``touch marker`` on the next ``git status``."""
    subprocess.run(["git", "init", "-q", "--bare", str(where)], check=True)
    for key, value in (
        ("core.bare", "false"),
        ("core.worktree", ".."),
        ("core.fsmonitor", f"touch {marker}"),
    ):
        subprocess.run(["git", "config", "-f", str(where / "config"), key, value], check=True)


async def run_shell(command: str, cwd: Path, out: Path) -> int:
    with open(out, "wb") as output:
        process = await spawn_shell(command, cwd, output, cwd_file=None, wrapper=None)
        return await process.wait()


@pytest.mark.parametrize("place", ["planted", "deep/er/planted", "vendor/lib.git"])
async def test_git_status_in_a_planted_bare_repository_runs_nothing(
    tmp_path: Path, place: str
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    marker = tmp_path / "pwned"
    plant_bare_repository(proj / place, marker)
    code = await run_shell(f"cd {place} && git status", proj, tmp_path / "out")
    output = (tmp_path / "out").read_text()
    assert not marker.exists()
    assert code != 0 and "safe.bareRepository" in output


async def test_the_session_repository_still_works(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    code = await run_shell(
        "git status --short && git rev-parse --show-toplevel",
        proj / "src",
        tmp_path / "out",
    )
    assert code == 0
    assert str(proj) in (tmp_path / "out").read_text()


def test_pinning_appends_to_the_users_own_git_config_env(tmp_path: Path) -> None:
    env = {"GIT_CONFIG_PARAMETERS": "'user.name'='x'", "GIT_CEILING_DIRECTORIES": "/srv"}
    added = pinned_git_env(env, tmp_path)
    assert added["GIT_CONFIG_PARAMETERS"] == "'user.name'='x' 'safe.bareRepository'='explicit'"
    assert added["GIT_CEILING_DIRECTORIES"] == f"/srv:{tmp_path.resolve().parent}"
