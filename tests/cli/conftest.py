"""A pseudo-terminal driver for the interactive CLI (stdlib ``pty``; no pexpect needed)."""

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
# The line editor turns on bracketed paste exactly when it starts reading a prompt: shown
# as this marker, it tells a test that the REPL waits for input (its "> " is drawn with
# cursor moves, and redrawn with every typed line, so the text alone cannot say that).
BRACKETED_PASTE_ON = b"\x1b[?2004h"
READY = "\u27e8ready\u27e9"
DEFAULT_TIMEOUT = 60.0  # a loaded 2-core CI machine: waiting longer costs a passing test nothing


class PtySession:
    """``python -m loopwright.cli.main ARGS`` on a terminal; ``expect`` reads up to a text."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        environment = {
            k: v
            for k, v in os.environ.items()
            if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LOOPWRIGHT_MODEL")
        }
        environment.update(TERM="xterm-256color", COLUMNS="160", LINES="50")
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the CLI
            os.chdir(cwd)
            os.execve(
                sys.executable, [sys.executable, "-m", "loopwright.cli.main", *args], environment
            )
        self.pid, self.fd = pid, fd
        # A wide terminal keeps rich from wrapping the lines the tests look for.
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        self.seen = ""  # everything read so far, escapes stripped
        self._unread = ""  # the part no expect() has consumed yet
        self.exit_status: int | None = None
        # What the terminal received, with when: an asciinema recording (write_cast).
        self.started = time.monotonic()
        self.received: list[tuple[float, str]] = []

    def _read_some(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            return False
        self.received.append((time.monotonic() - self.started, chunk.decode(errors="replace")))
        marked = chunk.replace(BRACKETED_PASTE_ON, READY.encode())
        text = ANSI.sub(b"", marked).decode(errors="replace")
        self.seen += text
        self._unread += text
        return bool(chunk)

    def expect(self, text: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Wait for ``text``; returns what came before it (and consumes both)."""
        deadline = time.monotonic() + timeout
        while text not in self._unread:
            if not self._read_some(deadline):
                raise AssertionError(f"never saw {text!r}; the terminal showed:\n{self.seen}")
        before, _, self._unread = self._unread.partition(text)
        return before

    def send_line(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def send_bytes(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait_until_reading_keys(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until the CLI's main thread sleeps in readline's select (Linux /proc).

        A signal that arrives between readline printing the prompt and its select() is
        only seen at the next key press (a CPython race), so Ctrl-C is sent after this.
        """
        deadline = time.monotonic() + timeout
        wchan = Path(f"/proc/{self.pid}/task/{self.pid}/wchan")
        while time.monotonic() < deadline:
            if not wchan.exists():
                return  # not Linux: fall back to sending at once
            if any(word in wchan.read_text() for word in ("select", "poll", "wait_woken")):
                return
            time.sleep(0.01)
        raise AssertionError("the CLI never waited for a key")

    def wait(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """The exit code, draining output meanwhile (a full terminal would block the child)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.exit_status = os.waitstatus_to_exitcode(status)
                while self._read_some(time.monotonic() + 0.05):
                    pass
                return self.exit_status
            self._read_some(min(deadline, time.monotonic() + 0.05))
        raise AssertionError(f"the CLI did not exit; the terminal showed:\n{self.seen}")

    def write_cast(self, path: Path, title: str) -> Path:
        """The session as an asciinema v2 recording (``asciinema play PATH``)."""
        header = {"version": 2, "width": 160, "height": 50, "title": title}
        header["env"] = {"TERM": "xterm-256color"}
        lines = [json.dumps(header)]
        lines.extend(json.dumps([round(at, 4), "o", text]) for at, text in self.received)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def close(self) -> None:
        if self.exit_status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)


@pytest.fixture
def start_cli() -> Iterator[Callable[..., PtySession]]:
    """Start the CLI on a terminal: ``start_cli(*args, cwd=path)``; killed at test end."""
    sessions: list[PtySession] = []

    def start(*args: str, cwd: Path) -> PtySession:
        session = PtySession(list(args), cwd)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.close()
