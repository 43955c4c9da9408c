"""Run one command in bubblewrap under strace and collect what it did.

The sandbox sees the host read-only, a private /tmp, and the run directory (project, home,
outside, scratch) read-write, with every namespace unshared (no network, own pid space),
``--die-with-parent`` and ``--new-session``. strace runs *outside* the sandbox, so the
command cannot reach or rewrite its own trace. The environment is clean: HOME is the run
dir's home, TMPDIR its scratch dir, a fixed PATH.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from shell_fuzz import snapshot
from shell_fuzz.trace import TRACED_SYSCALLS, Effect, read_effects

INSTALL_HINT = "apt-get install bubblewrap strace"
_OUTPUT_LIMIT = 64 * 1024 * 1024  # RLIMIT_FSIZE: a runaway command cannot fill the disk


def find_tools() -> tuple[str, str | None] | str:
    """(bwrap, strace or None) paths, or why the oracle cannot run and how to fix it.
    Without strace the oracle still sees file changes (tree snapshot) and leaked markers,
    but not which programs ran or which files were opened."""
    bwrap = shutil.which("bwrap")
    strace = shutil.which("strace")
    if bwrap is None:
        return f"the shell fuzzer's oracle needs bubblewrap: {INSTALL_HINT}"
    probe = subprocess.run(
        [bwrap, *_namespace_args(), "--ro-bind", "/", "/", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"bubblewrap cannot create a sandbox here: {probe.stderr.strip()}"
    return bwrap, strace


@dataclass(frozen=True, slots=True)
class Observation:
    command: str
    effects: tuple[Effect, ...]
    output: str
    exit_code: int | None  # None when the command was killed at the timeout


@dataclass(slots=True)
class Sandbox:
    bwrap: str
    strace: str | None
    run_dir: Path
    timeout: float = 5.0
    bash: str = shutil.which("bash") or "/bin/bash"

    @property
    def proj(self) -> Path:
        return self.run_dir / "proj"

    def environment(self) -> dict[str, str]:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.run_dir / "home"),
            "TMPDIR": str(self.run_dir / "scratch"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "USER": "fuzz",
            # A configured identity, as on a developer's machine, so git commit proceeds
            # (and runs whatever hooks a command managed to plant).
            "GIT_AUTHOR_NAME": "fuzz",
            "GIT_AUTHOR_EMAIL": "fuzz@example.invalid",
            "GIT_COMMITTER_NAME": "fuzz",
            "GIT_COMMITTER_EMAIL": "fuzz@example.invalid",
        }

    def observe(self, command: str) -> Observation:
        skip = (self.run_dir / "scratch",)
        before = snapshot.take(self.run_dir, skip)
        with tempfile.TemporaryDirectory(prefix="lw-trace-") as trace_dir:
            trace = Path(trace_dir)
            argv = [*self._bwrap_argv(), self.bash, "-c", command]
            if self.strace is not None:
                argv = [*self._strace_argv(trace), "--", *argv]
            with open(trace / "out", "wb") as out:
                exit_code = self._run(argv, out)
            output = (trace / "out").read_bytes()[:1_000_000].decode("utf-8", "replace")
            effects = read_effects(trace, "t", self.bash, str(self.proj))
        seen = {e.path for e in effects if e.kind == "write"}
        unseen = [
            Effect("write", path, "(untraced)", True, ("(untraced)",), f"tree snapshot: {path}")
            for path in snapshot.changed(before, snapshot.take(self.run_dir, skip))
            if path not in seen
        ]
        return Observation(command, (*effects, *unseen), output, exit_code)

    def _strace_argv(self, trace: Path) -> list[str]:
        assert self.strace is not None
        return [
            self.strace,
            *("-f", "-ff", "-qq", "-y", "--pidns-translation", "--seccomp-bpf"),
            *("-s", "4096", "-o", str(trace / "t"), "-e", f"trace={TRACED_SYSCALLS}"),
        ]

    def _bwrap_argv(self) -> list[str]:
        run = str(self.run_dir)
        return [
            self.bwrap,
            *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"),
            *("--bind", run, run, "--chdir", str(self.proj)),
            *_namespace_args(),
        ]

    def _run(self, argv: list[str], out: object) -> int | None:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,  # type: ignore[arg-type]
            stderr=subprocess.STDOUT,
            env=self.environment(),
            start_new_session=True,
            preexec_fn=_limit_file_size,
        )
        try:
            return process.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # our own process group only
            process.wait()
            return None


def _namespace_args() -> list[str]:
    return ["--unshare-all", "--die-with-parent", "--new-session"]


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (_OUTPUT_LIMIT, _OUTPUT_LIMIT))
