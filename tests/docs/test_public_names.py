"""Every name a user writes in a callback, hook, tool or test imports from a public path:
the README's own imports, the top-level package, and the old homes kept as aliases."""

import importlib
import re

import pytest

import loopwright

from .readme_blocks import README, readme_blocks

_IMPORT = re.compile(r"^\s*from\s+(loopwright[\w.]*)\s+import\s+\(?([^)#\n]+)", re.M)
_INLINE = re.compile(r"`from (loopwright[\w.]*) import ([\w, ]+)`")


def _readme_imports() -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    sources = [block.code for block in readme_blocks() if block.language == "python"]
    for code in sources:
        for module, names in _IMPORT.findall(code):
            pairs.extend((module, n.strip()) for n in names.split(",") if n.strip())
    for module, names in _INLINE.findall(README.read_text()):
        pairs.extend((module, n.strip()) for n in names.split(",") if n.strip())
    return sorted(set(pairs))


@pytest.mark.parametrize(("module", "name"), _readme_imports())
def test_every_name_the_readme_imports_exists(module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name), f"from {module} import {name}"


def test_every_top_level_export_imports() -> None:
    missing = [name for name in loopwright.__all__ if not hasattr(loopwright, name)]
    assert not missing


@pytest.mark.parametrize(
    "name",
    [
        "HookMatcher",
        "HookContext",
        "PreToolUseHookInput",
        "PermissionResultAllow",
        "PermissionResultDeny",
        "ToolPermissionContext",
        "CanUseTool",
        "PermissionMode",
        "create_sdk_mcp_server",
        "SandboxSettings",
        "register_price",
        "ModelPrice",
        "handoff",
        "HandoffAgent",
    ],
)
def test_callback_and_hook_authors_find_their_types_at_the_top(name: str) -> None:
    assert name in loopwright.__all__
    assert getattr(loopwright, name) is not None


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("loopwright.hooks", "HookMatcher"),
        ("loopwright.hooks.runner", "HookMatcher"),
        ("loopwright.permissions", "PermissionResultAllow"),
        ("loopwright.permissions", "PermissionResultDeny"),
        ("loopwright.types", "PermissionResultAllow"),
        ("loopwright.mcp.sdk_server", "create_sdk_mcp_server"),
        ("loopwright.sandbox.bwrap", "SandboxSettings"),
    ],
)
def test_documented_submodule_paths_and_old_homes_still_import(module: str, name: str) -> None:
    value = getattr(importlib.import_module(module), name)
    assert value is getattr(loopwright, name)
