"""The mode of a subagent: never looser than its parent's, in every respect.

The modes are not one line from loose to strict: ``plan`` asks before any edit that an
allow rule would approve in ``dontAsk``, and ``dontAsk`` denies what ``plan`` would ask
about. So a subagent runs under its own mode *and* its parent's (and the parent's own
constraints, for a subagent of a subagent): a call is allowed only when every one of
those modes allows it, asked about when one asks, and denied when one denies — or when
one asks and another is ``dontAsk``, which never asks.
"""

from __future__ import annotations

from loopwright.types import PERMISSION_MODES, PermissionMode

# Least to most permissive, for the mode a subagent reports (its first constraint).
_ORDER: tuple[PermissionMode, ...] = (
    "plan",
    "dontAsk",
    "default",
    "acceptEdits",
    "bypassPermissions",
)


def subagent_modes(
    parent: tuple[PermissionMode, ...], requested: str | None
) -> tuple[PermissionMode, tuple[PermissionMode, ...]]:
    """(the mode the subagent reports, the other modes it must also satisfy), from the
    parent's modes (its own first) and the mode its definition asks for, if any."""
    modes: list[PermissionMode] = list(dict.fromkeys(parent))
    if requested in PERMISSION_MODES:
        modes.append(_as_mode(requested))
    modes = list(dict.fromkeys(modes))
    primary = min(modes, key=_ORDER.index)
    return primary, tuple(m for m in modes if m != primary and _adds_constraint(m, primary))


def _adds_constraint(mode: PermissionMode, primary: PermissionMode) -> bool:
    """Whether ``mode`` forbids something ``primary`` allows (only plan and dontAsk are
    not ordered: each forbids something the other allows)."""
    return {mode, primary} == {"plan", "dontAsk"}


def _as_mode(name: str | None) -> PermissionMode:
    for mode in _ORDER:
        if mode == name:
            return mode
    return "default"
