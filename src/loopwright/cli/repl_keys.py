"""Keys read one at a time from the terminal, outside the line editor.

While a response runs the terminal is in cbreak mode (no echo, no line buffering, but
Ctrl-C still a signal), so a lone Esc can interrupt the turn and a permission question is
answered by one key press, no Enter. An Esc that starts an escape sequence (an arrow key)
is told apart by what follows it within a few milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import termios
import tty
from collections.abc import Generator
from typing import Any

ESC = "\x1b"
# Terminals send a sequence's bytes together; a lone Esc has nothing behind it.
SEQUENCE_GAP_SECONDS = 0.05


def _stdin_fd() -> int | None:
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return None
    return fd if os.isatty(fd) else None


class Keys:
    """cbreak mode for as long as it is entered; ``poll``/``read`` give whole keys."""

    def __init__(self) -> None:
        self.fd = _stdin_fd()
        self._saved: list[Any] | None = None

    def __enter__(self) -> Keys:
        if self.fd is not None:
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd, termios.TCSANOW)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.fd is not None and self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            self._saved = None

    @contextlib.contextmanager
    def cooked(self) -> Generator[None]:
        """The terminal as it was (echo, line editing), to read a line of text."""
        saved = self._saved
        self.__exit__()
        try:
            yield
        finally:
            if saved is not None:
                self.__enter__()

    def _ready(self, timeout: float) -> bool:
        if self.fd is None:
            return False
        ready, _, _ = select.select([self.fd], [], [], timeout)
        return bool(ready)

    def poll(self, timeout: float) -> str | None:
        """One key if one is pressed within ``timeout`` seconds, else None."""
        if not self._ready(timeout):
            return None
        assert self.fd is not None
        data = os.read(self.fd, 1)
        if not data:
            raise EOFError
        if data == ESC.encode():
            while self._ready(SEQUENCE_GAP_SECONDS):
                data += os.read(self.fd, 16)
        elif data[0] >= 0xC0:  # the first byte of a UTF-8 character: read the rest of it
            data += os.read(self.fd, 1 + (data[0] >= 0xE0) + (data[0] >= 0xF0))
        return data.decode(errors="replace")

    def read(self) -> str:
        """Wait for a key (``input()`` when standard input is not a terminal)."""
        if self.fd is None:
            return input()[:1] or "\r"
        while True:
            key = self.poll(3600)
            if key is not None:
                return key
