"""OS sandbox for the Bash tool (bubblewrap on Linux)."""

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'loopwright.sandbox' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MASKED_PATHS",
    "BwrapSandbox",
    "SandboxSettings",
    "check_available",
    "masks_for_read_denials",
]
