"""Finding and running the ``rg`` binary shipped by the ``ripgrep`` PyPI package."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Decides, line by line, which lines of rg output are kept (and counted).
LineFilter = Callable[[bytes], bool]

RG_TIMEOUT_SECONDS = 60.0


@functools.cache
def ripgrep_binary() -> str | None:
    """The rg executable: the ripgrep package's own file first, then next to Python, then PATH.

    PATH is the last resort so an unrelated or older rg on the machine is not picked up.
    """
    import importlib.metadata  # deferred: ~12 ms, needed once per process

    try:
        distribution = importlib.metadata.distribution("ripgrep")
        for entry in distribution.files or []:
            if entry.name in ("rg", "rg.exe"):
                located = Path(str(distribution.locate_file(entry))).resolve()
                if located.is_file():
                    return str(located)
    except importlib.metadata.PackageNotFoundError:
        pass
    for directory in (Path(sys.executable).parent, Path(sys.prefix) / "bin"):
        candidate = directory / "rg"
        if candidate.is_file():
            return str(candidate)
    return shutil.which("rg")


MISSING_RIPGREP = (
    "ripgrep is not available: install the 'ripgrep' Python package "
    "(pip install ripgrep==14.1.0) or put rg on PATH"
)


@dataclass(frozen=True, slots=True)
class RgOutput:
    stdout: bytes
    stderr: str
    exit_code: int


async def run_rg(
    args: list[str], cwd: Path, timeout: float = RG_TIMEOUT_SECONDS, stdin: bytes | None = None
) -> RgOutput:
    """Run rg to completion; kill it on timeout or cancellation. Raises FileNotFoundError."""
    binary = ripgrep_binary()
    if binary is None:
        raise FileNotFoundError(MISSING_RIPGREP)
    process = await asyncio.create_subprocess_exec(
        binary,
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(stdin), timeout)
    except (TimeoutError, asyncio.CancelledError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await asyncio.shield(process.wait())
        raise
    return RgOutput(stdout, stderr.decode("utf-8", errors="replace"), process.returncode or 0)


@dataclass(frozen=True, slots=True)
class RgLines:
    """The first lines rg printed; ``complete`` is False when we stopped it early."""

    lines: list[bytes]
    stderr: str
    exit_code: int
    complete: bool


async def _read_lines(
    stream: asyncio.StreamReader, max_lines: int | None, keep: LineFilter | None = None
) -> tuple[bytes, bool]:
    """Up to ``max_lines`` lines (all when None), and whether the stream was read to its end.
    With ``keep``, only the lines it accepts are kept and counted."""
    if keep is not None:
        return await _read_kept_lines(stream, max_lines, keep)
    chunks: list[bytes] = []
    newlines = 0
    while chunk := await stream.read(256 * 1024):
        chunks.append(chunk)
        newlines += chunk.count(b"\n")
        if max_lines is not None and newlines >= max_lines:
            return (b"".join(chunks), False)
    return (b"".join(chunks), True)


async def _read_kept_lines(
    stream: asyncio.StreamReader, max_lines: int | None, keep: LineFilter
) -> tuple[bytes, bool]:
    kept: list[bytes] = []
    partial = b""
    while chunk := await stream.read(256 * 1024):
        *complete, partial = (partial + chunk).split(b"\n")
        kept.extend(line + b"\n" for line in complete if keep(line))
        if max_lines is not None and len(kept) >= max_lines:
            return (b"".join(kept), False)
    if partial and keep(partial):
        kept.append(partial)
    return (b"".join(kept), True)


async def run_rg_lines(
    args: list[str],
    cwd: Path,
    max_lines: int | None,
    timeout: float = RG_TIMEOUT_SECONDS,
    keep: LineFilter | None = None,
) -> RgLines:
    """Run rg, keeping at most ``max_lines`` lines of output and stopping rg once it has them.

    Content searches can print gigabytes; stopping early bounds both memory and time.
    """
    binary = ripgrep_binary()
    if binary is None:
        raise FileNotFoundError(MISSING_RIPGREP)
    process = await asyncio.create_subprocess_exec(
        binary,
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    stderr_task = asyncio.create_task(process.stderr.read())
    stdout, complete = b"", False
    try:
        stdout, complete = await asyncio.wait_for(
            _read_lines(process.stdout, max_lines, keep), timeout
        )
    finally:
        if not complete:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        exit_code = await asyncio.shield(process.wait())
        stderr = await asyncio.shield(stderr_task)
    lines = stdout.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if max_lines is not None:
        lines = lines[:max_lines]
    return RgLines(lines, stderr.decode("utf-8", errors="replace"), exit_code, complete)
