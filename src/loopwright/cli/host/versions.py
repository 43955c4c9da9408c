"""The versions the host reports, and ``loopwright --version``."""

from __future__ import annotations

# The Claude Code release whose stream-json protocol the host speaks; the SDKs read it from
# ``init.claude_code_version`` and warn below their minimums (a warning only).
CLAUDE_CODE_PROTOCOL_VERSION = "2.1.332"


def loopwright_version() -> str:
    from loopwright import __version__

    return __version__


def version_line() -> str:
    """What ``--version`` prints: Claude Code's ``X.Y.Z (Claude Code)`` shape."""
    return (
        f"{loopwright_version()} (loopwright; Claude Code protocol {CLAUDE_CODE_PROTOCOL_VERSION})"
    )
