"""A small project on disk: sources, secrets, config, and symlinks in and out."""

from __future__ import annotations

from pathlib import Path

import pytest

from permissions.permission_helpers import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    outside = tmp_path / "outside"
    for directory in ("src", "secrets", "config", "deep/secrets", "sub", ".git"):
        (root / directory).mkdir(parents=True, exist_ok=True)
    outside.mkdir()
    (outside / "file").write_text("outside\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".env").write_text("TOKEN=x\n")
    (root / "sub" / ".env").write_text("TOKEN=y\n")
    (root / "secrets" / "key").write_text("k\n")
    (root / "deep" / "secrets" / "key").write_text("k\n")
    (root / "config" / "app.yml").write_text("a: 1\n")
    (root / "link-to-env").symlink_to(root / ".env")
    (root / "escape").symlink_to(outside / "file")
    (root / "src" / "link-out").symlink_to(outside / "file")
    (tmp_path / "home").mkdir()
    return Project(root, outside)
