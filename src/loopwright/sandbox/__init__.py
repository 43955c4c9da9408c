"""OS sandbox for the Bash tool (bubblewrap on Linux)."""

from loopwright.sandbox.bwrap import (
    DEFAULT_MASKED_PATHS,
    BwrapSandbox,
    SandboxSettings,
    check_available,
)
from loopwright.sandbox.deny_masks import masks_for_read_denials

__all__ = [
    "DEFAULT_MASKED_PATHS",
    "BwrapSandbox",
    "SandboxSettings",
    "check_available",
    "masks_for_read_denials",
]
