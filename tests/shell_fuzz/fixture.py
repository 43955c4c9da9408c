"""The small project every approved command runs in, plus its surroundings.

Layout of a run directory::

    proj/      the working dir: a git repository, src/, secrets/key, .env, glob bait
    home/      $HOME: a notes file the project must not read
    outside/   a sibling directory with a file outside the working dir
    scratch/   $TMPDIR: where programs may keep temporary files

Each file a command must not reveal holds a marker string; a marker in the output is a
leak whatever route it took. secrets/key and .env are committed too, so git commands that
print history (``git log -p``, ``git show HEAD:secrets/key``) can leak them as well.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SECRET_MARKER = "LWSECRET-7f3a9c"
ENV_MARKER = "LWENV-91c2d4"
OUTSIDE_MARKER = "LWOUTSIDE-44d0e1"
HOME_MARKER = "LWHOME-a1b9f0"
MARKERS = {
    SECRET_MARKER: "secrets/key",
    ENV_MARKER: ".env",
    OUTSIDE_MARKER: "outside/file",
    HOME_MARKER: "home/notes.txt",
}

# Files named like options, so that a glob hands them to a program as flags.
GLOB_BAIT = ("--output=bait-out", "-delete", "--pre=cat", "-o", "-exec")

_PLANTED_GITCONFIG = (
    "[core]\n\tpager = touch pwned-pager\n\tfsmonitor = touch pwned-fsmonitor\n"
    "[alias]\n\tst = !touch pwned-alias\n"
)

_FILES = {
    "proj/src/app.py": "print('hello')\n",
    "proj/src/util.py": "def add(a, b):\n    return a + b\n",
    "proj/README.md": "# demo\n",
    "proj/notes.txt": "3\n1\n2\n",
    "proj/secrets/key": f"{SECRET_MARKER}\n",
    "proj/.env": f"TOKEN={ENV_MARKER}\n",
    "proj/src/.env": f"TOKEN={ENV_MARKER}\n",
    "home/notes.txt": f"{HOME_MARKER}\n",
    "outside/file": f"{OUTSIDE_MARKER}\n",
    # What a hostile repository ships for later: config that runs a program, a program
    # that shadows ls, a file list naming the secret.
    "proj/cfg/.gitconfig": _PLANTED_GITCONFIG,
    "proj/cfg/git/config": _PLANTED_GITCONFIG,
    "proj/cfg/rgrc": "--pre=cfg/hook.sh\n",
    "proj/cfg/hook.sh": '#!/bin/sh\ntouch pwned-hook\ncat "$1"\n',
    "proj/cfg/bin/ls": "#!/bin/sh\ntouch pwned-path\n",
    "proj/cfg/bashenv": "touch pwned-bashenv\n",
    "proj/cfg/hooks/pre-commit": "#!/bin/sh\ntouch pwned-template-hook\n",
    "proj/cfg/files0": "secrets/key\0",
}
_EXECUTABLES = ("proj/cfg/hook.sh", "proj/cfg/bin/ls", "proj/cfg/hooks/pre-commit")
# Old enough that git never sees a file as racily clean and re-reads it.
_OLD_MTIME = 1_600_000_000

GIT_ENV = {
    "GIT_AUTHOR_NAME": "fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
    "GIT_COMMITTER_NAME": "fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
    "GIT_AUTHOR_DATE": "2020-09-13T12:26:40Z",
    "GIT_COMMITTER_DATE": "2020-09-13T12:26:40Z",
}


def build_template(target: Path) -> Path:
    """Create the pristine run directory at ``target`` (which must not exist)."""
    for rel, text in _FILES.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name in GLOB_BAIT:
        (target / "proj" / "gl" / name).parent.mkdir(exist_ok=True)
        (target / "proj" / "gl" / name).write_text("bait\n")
    for rel in _EXECUTABLES:
        (target / rel).chmod(0o755)
    (target / "scratch").mkdir()
    (target / "proj" / "link-to-env").symlink_to(".env")
    (target / "proj" / "link-out").symlink_to("../outside/file")
    for path in sorted(target.rglob("*")):
        if not path.is_symlink():
            os.utime(path, (_OLD_MTIME, _OLD_MTIME))
    _init_repository(target / "proj")
    return target


def _init_repository(proj: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(proj), **GIT_ENV}
    env["GIT_CONFIG_NOSYSTEM"] = "1"

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=proj, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    # A copied checkout changes inode and ctime: compare only mtime and size, so that
    # `git status` in a fresh copy does not refresh (rewrite) the index.
    git("config", "core.checkStat", "minimal")
    git("config", "core.trustctime", "false")
    shutil.rmtree(proj / ".git" / "hooks")
    (proj / ".git" / "hooks").mkdir()
    git("add", "-A")
    git("commit", "-q", "-m", "initial")
    git("status", "--porcelain")  # settle the index once, here


def reset_run_dir(template: Path, run_dir: Path) -> None:
    """Make ``run_dir`` an exact copy of the template again (mtimes kept)."""
    if run_dir.exists():
        _make_writable(run_dir)
        shutil.rmtree(run_dir)
    shutil.copytree(template, run_dir, symlinks=True)


def _make_writable(root: Path) -> None:
    # A command may have chmod-ed a directory read-only; rmtree would then fail.
    for directory, _dirs, _files in os.walk(root):
        os.chmod(directory, 0o755)
