"""OS sandbox for the Bash tool (bubblewrap on Linux)."""

from typing import TYPE_CHECKING, Any

from loopwright.sandbox.bwrap import (
    DEFAULT_MASKED_PATHS,
    BwrapSandbox,
    SandboxSettings,
    check_available,
)

if TYPE_CHECKING:
    from loopwright.sandbox.deny_masks import masks_for_read_denials


def __getattr__(name: str) -> Any:
    # start-up: the deny masks load when a sandbox is built
    if name == "masks_for_read_denials":
        from loopwright.sandbox.deny_masks import masks_for_read_denials

        return masks_for_read_denials
    raise AttributeError(f"module 'loopwright.sandbox' has no attribute {name!r}")


__all__ = [
    "DEFAULT_MASKED_PATHS",
    "BwrapSandbox",
    "SandboxSettings",
    "check_available",
    "masks_for_read_denials",
]
