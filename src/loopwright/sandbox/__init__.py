"""OS sandbox for the Bash tool (bubblewrap on Linux)."""

from typing import TYPE_CHECKING

from loopwright.lazy_exports import lazy_exports

# Each name loads its module when first used (start-up: settings parse their sandbox
# section through sandbox.config, and most sessions never build a sandbox).
_EXPORTS: dict[str, str] = {
    "DEFAULT_MASKED_PATHS": "loopwright.sandbox.bwrap",
    "BwrapSandbox": "loopwright.sandbox.bwrap",
    "SandboxSettings": "loopwright.sandbox.bwrap",
    "check_available": "loopwright.sandbox.bwrap",
    "masks_for_read_denials": "loopwright.sandbox.deny_masks",
}

if TYPE_CHECKING:
    from loopwright.sandbox.bwrap import (
        DEFAULT_MASKED_PATHS,
        BwrapSandbox,
        SandboxSettings,
        check_available,
    )
    from loopwright.sandbox.deny_masks import masks_for_read_denials


__getattr__ = lazy_exports("loopwright.sandbox", _EXPORTS)


__all__ = [
    "DEFAULT_MASKED_PATHS",
    "BwrapSandbox",
    "SandboxSettings",
    "check_available",
    "masks_for_read_denials",
]
