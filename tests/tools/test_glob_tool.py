"""Glob: pattern syntax, newest-first ordering, the cap, and .gitignore on request."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from error_advice import assert_says_what_to_do
from loopwright.tools.base import ToolContext, ToolResult
from loopwright.tools.glob import GlobTool
from loopwright.tools.glob_pattern import compile_glob


async def glob(ctx: ToolContext, **input: Any) -> ToolResult:
    return await GlobTool().call(input, ctx)


def touch(path: Path, mtime: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(path.name)
    os.utime(path, (mtime, mtime))
    return path


def test_pattern_translation() -> None:
    cases = {
        "**/*.py": (["a.py", "x/y/b.py"], ["a.pyc", "x/b.txt"]),
        "src/**/*.ts": (["src/a.ts", "src/x/y/b.ts"], ["lib/a.ts", "src/a.tsx"]),
        "*.{json,yaml}": (["a.json", "b.yaml"], ["x/a.json", "a.yml"]),
        "file?.[ch]": (["file1.c", "fileZ.h"], ["file10.c", "file1.o"]),
        "[!a]*.md": (["b.md"], ["a.md"]),
    }
    for pattern, (good, bad) in cases.items():
        compiled = compile_glob(pattern)
        for path in good:
            relative = path.removeprefix(compiled.literal_prefix + "/")
            assert compiled.matcher.fullmatch(relative), (pattern, path)
        for path in bad:
            relative = path.removeprefix(compiled.literal_prefix + "/")
            matched = relative != path or not compiled.literal_prefix
            assert not (matched and compiled.matcher.fullmatch(relative)), (pattern, path)


async def test_newest_first(ctx: ToolContext, tmp_path: Path) -> None:
    old = touch(tmp_path / "old.py", 1_000_000)
    new = touch(tmp_path / "pkg" / "new.py", 3_000_000)
    mid = touch(tmp_path / "mid.py", 2_000_000)
    touch(tmp_path / "skip.txt", 4_000_000)
    result = await glob(ctx, pattern="**/*.py")
    assert str(result.content).splitlines() == [str(new), str(mid), str(old)]


async def test_single_star_stays_in_one_directory(ctx: ToolContext, tmp_path: Path) -> None:
    top = touch(tmp_path / "top.py", 1_000_000)
    touch(tmp_path / "pkg" / "deep.py", 2_000_000)
    result = await glob(ctx, pattern="*.py")
    assert str(result.content).splitlines() == [str(top)]


async def test_cap_with_note(ctx: ToolContext, tmp_path: Path) -> None:
    for index in range(130):
        touch(tmp_path / "many" / f"f{index:03}.txt", 1_000_000 + index)
    result = await glob(ctx, pattern="many/*.txt")
    lines = str(result.content).splitlines()
    assert len(lines) == 101
    assert lines[0] == str(tmp_path / "many" / "f129.txt")
    assert "30 more files" in lines[-1]


async def test_path_parameter_and_relative_path(ctx: ToolContext, tmp_path: Path) -> None:
    inside = touch(tmp_path / "sub" / "a.md", 1_000_000)
    touch(tmp_path / "b.md", 1_000_000)
    assert str((await glob(ctx, pattern="*.md", path=str(tmp_path / "sub"))).content) == str(inside)
    assert str((await glob(ctx, pattern="*.md", path="sub")).content) == str(inside)


async def test_gitignore_only_when_asked(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n")
    kept = touch(tmp_path / "src" / "a.js", 2_000_000)
    ignored = touch(tmp_path / "build" / "a.js", 1_000_000)
    everything = str((await glob(ctx, pattern="**/*.js")).content).splitlines()
    assert everything == [str(kept), str(ignored)]
    respected = await glob(ctx, pattern="**/*.js", respect_gitignore=True)
    assert str(respected.content).splitlines() == [str(kept)]


async def test_no_match_and_errors(ctx: ToolContext, tmp_path: Path) -> None:
    assert (await glob(ctx, pattern="*.nothing")).content == "No files found"
    for case, fix in (
        ({}, "pattern must be a non-empty string"),
        ({"pattern": ""}, "pattern must be a non-empty string"),
        ({"pattern": "a\x00b"}, "remove them"),
        ({"pattern": "*", "path": str(tmp_path / "missing")}, "pass an existing directory"),
        ({"pattern": "*", "respect_gitignore": "no"}, "must be true or false"),
    ):
        result = await glob(ctx, **case)
        assert result.is_error, case
        assert_says_what_to_do(result.content, fix)


def test_adversarial_patterns_match_in_polynomial_time() -> None:
    import time

    deep = "/".join(["a"] * 30) + "/y"
    long_name = "a" * 250
    cases = [
        ("**/" * 12 + "x", deep, False),
        ("**/a/" * 8 + "**/y", deep, True),
        ("*a*a*a*a*a*a*a*a*b", long_name, False),
        ("{a,b}/{c,d}/**/*{x,y}*", "b/c/q/r/zyz", True),
    ]
    for pattern, path, expected in cases:
        started = time.monotonic()
        assert compile_glob(pattern).matcher.fullmatch(path) == expected, pattern
        assert time.monotonic() - started < 1, pattern


async def test_a_brace_bomb_is_an_error(ctx: ToolContext) -> None:
    result = await glob(ctx, pattern="{a,b}" * 12)
    assert result.is_error and "alternatives" in str(result.content)
    assert_says_what_to_do(result.content, "use fewer braces")
