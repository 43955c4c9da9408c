"""OS sandbox for the Bash tool (bubblewrap on Linux)."""

from loopwright.sandbox.bwrap import (
    DEFAULT_MASKED_PATHS,
    BwrapSandbox,
    SandboxSettings,
    check_available,
)

__all__ = ["DEFAULT_MASKED_PATHS", "BwrapSandbox", "SandboxSettings", "check_available"]
