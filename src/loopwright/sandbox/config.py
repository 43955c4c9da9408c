"""The ``sandbox`` section of settings.json, in the shape Claude Code configs use:

    {"sandbox": {"enabled": true,
                 "filesystem": {"allowWrite": ["~/.kube"], "denyRead": ["~/.config/x"]},
                 "network": {"allowedDomains": ["pypi.org"]}}}

Paths: ``/x`` absolute, ``~/x`` home, anything else relative to the settings source's
base (the project root for project/local files, ``~/.claude`` for user files).
Lists from every file are combined; ``enabled`` comes from the highest-precedence file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from loopwright.errors import SettingsError

if TYPE_CHECKING:  # start-up: bwrap loads when a settings file has a sandbox section
    from loopwright.sandbox.bwrap import SandboxSettings


@dataclass(slots=True)
class SandboxLayer:
    """What one settings file says about the sandbox."""

    enabled: bool | None = None
    allow_write: list[str] = field(default_factory=list[str])
    deny_read: list[str] = field(default_factory=list[str])
    allowed_domains: list[str] = field(default_factory=list[str])

    @property
    def empty(self) -> bool:
        return self.enabled is None and not (
            self.allow_write or self.deny_read or self.allowed_domains
        )


def parse_sandbox_section(
    data: Mapping[str, Any], path: Path, base: Path, home: Path
) -> SandboxLayer:
    section = data.get("sandbox")
    if section is None:
        return SandboxLayer()
    if not isinstance(section, dict):
        raise SettingsError(f"{path}: 'sandbox' must be an object")
    section = cast(dict[str, Any], section)
    enabled = section.get("enabled")
    if enabled is not None and not isinstance(enabled, bool):
        raise SettingsError(f"{path}: sandbox.enabled must be true or false")
    filesystem = _object(section, "filesystem", path)
    network = _object(section, "network", path)
    return SandboxLayer(
        enabled,
        [_resolve(p, base, home) for p in _strings(filesystem, "allowWrite", path)],
        [_resolve(p, base, home) for p in _strings(filesystem, "denyRead", path)],
        _strings(network, "allowedDomains", path),
    )


def merge_sandbox_layers(layers: Sequence[SandboxLayer]) -> SandboxSettings | None:
    """Layers lowest precedence first → settings, or None when no file mentions it."""
    if all(layer.empty for layer in layers):
        return None
    from loopwright.sandbox.bwrap import SandboxSettings  # start-up: see the imports

    merged = SandboxSettings(enabled=False)
    for layer in layers:
        merged = replace(
            merged,
            enabled=merged.enabled if layer.enabled is None else layer.enabled,
            writable_paths=(*merged.writable_paths, *layer.allow_write),
            masked_paths=(*merged.masked_paths, *layer.deny_read),
            allowed_domains=(*merged.allowed_domains, *layer.allowed_domains),
        )
    return merged


def _object(section: Mapping[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = section.get(key, {})
    if not isinstance(value, dict):
        raise SettingsError(f"{path}: sandbox.{key} must be an object")
    return cast(dict[str, Any], value)


def _strings(section: Mapping[str, Any], key: str, path: Path) -> list[str]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{path}: sandbox setting {key!r} must be a list of strings")
    return cast(list[str], value)


def _resolve(raw: str, base: Path, home: Path) -> str:
    if raw.startswith("/"):
        return raw
    if raw == "~" or raw.startswith("~/"):
        return str(home / raw[2:])
    return str((base / raw).resolve())
