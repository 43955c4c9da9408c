"""Grep returns exactly what running rg directly returns, in every output mode."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from error_advice import assert_says_what_to_do
from loopwright.tools.base import SessionState, ToolContext, ToolResult
from loopwright.tools.grep import GrepTool
from loopwright.tools.ripgrep import ripgrep_binary

RG = ripgrep_binary()


def rg(*args: str) -> list[str]:
    assert RG is not None
    completed = subprocess.run(
        [RG, "--no-config", *args], capture_output=True, text=True, check=False
    )
    assert completed.returncode in (0, 1), completed.stderr
    return completed.stdout.splitlines()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("grep_tree")
    (root / ".git").mkdir()  # makes rg honour .gitignore, as in a real checkout
    (root / ".gitignore").write_text("ignored/\n*.log\n")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("def main():\n    print('Hello')\n    return 0\n")
    (root / "src" / "util.py").write_text("HELLO = 1\n\n\ndef helper():\n    return HELLO\n")
    (root / "docs").mkdir()
    (root / "docs" / "naïve café.md").write_text("Ünïcode hello wörld\nzweite Zeile\n")
    (root / "docs" / "notes.txt").write_text("first\nhello there\nlast\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "secret.py").write_text("hello from an ignored file\n")
    (root / "debug.log").write_text("hello in a log\n")
    (root / "blob.bin").write_bytes(b"\x00\x01hello\x00binary")
    many = root / "many"
    for group in range(100):
        folder = many / f"g{group:03}"
        folder.mkdir(parents=True)
        for item in range(100):
            text = f"item {item}\nneedle {group}-{item}\n" if item % 7 == 0 else f"item {item}\n"
            (folder / f"f{item:03}.txt").write_text(text)
    return root


async def grep(root: Path, **input: Any) -> ToolResult:
    ctx = ToolContext(state=SessionState(cwd=root), tool_use_id="t1")
    return await GrepTool().call(input, ctx)


def listed(result: ToolResult) -> list[str]:
    assert not result.is_error, result.content
    lines = str(result.content).splitlines()
    return lines[1:] if lines and lines[0].startswith("Found ") else lines


@pytest.mark.parametrize("pattern", ["hello", "(?i)hello", "needle 4\\d-", "wörld|café"])
async def test_files_with_matches_equal_rg(tree: Path, pattern: str) -> None:
    result = await grep(tree, pattern=pattern, path=str(tree), head_limit=0)
    expected = sorted(rg("--files-with-matches", "-e", pattern, "--", str(tree)))
    assert listed(result) == expected


async def test_ignored_and_binary_files_are_skipped_like_rg(tree: Path) -> None:
    files = listed(await grep(tree, pattern="hello", path=str(tree), head_limit=0))
    assert not any("ignored" in f or f.endswith((".log", ".bin")) for f in files)
    assert str(tree / "docs" / "naïve café.md") in files


@pytest.mark.parametrize(
    "extra, flags",
    [
        ({}, ["-n"]),
        ({"-i": True}, ["-n", "-i"]),
        ({"-C": 1}, ["-n", "-C", "1"]),
        ({"-A": 2, "-B": 1, "-n": False}, ["-N", "-A", "2", "-B", "1"]),
        ({"glob": "*.py", "-i": True}, ["-n", "-i", "--glob", "*.py"]),
        ({"type": "py", "-i": True}, ["-n", "-i", "--type", "py"]),
    ],
)
async def test_content_equals_rg(tree: Path, extra: dict[str, Any], flags: list[str]) -> None:
    result = await grep(
        tree, pattern="hello", path=str(tree), output_mode="content", head_limit=0, **extra
    )
    expected = rg("--sort=path", *flags, "-e", "hello", "--", str(tree))
    assert expected and str(result.content).splitlines() == expected


async def test_multiline_matches_across_lines(tree: Path) -> None:
    pattern = "Hello'\\)\\n\\s+return"
    result = await grep(tree, pattern=pattern, output_mode="content", multiline=True)
    expected = rg("--sort=path", "-n", "-U", "--multiline-dotall", "-e", pattern, "--", str(tree))
    assert expected and str(result.content).splitlines() == expected


async def test_count_equals_rg_with_a_total(tree: Path) -> None:
    result = await grep(tree, pattern="needle|hello", output_mode="count", head_limit=0)
    lines = str(result.content).splitlines()
    expected = sorted(rg("--count", "-e", "needle|hello", "--", str(tree)))
    assert lines[: len(expected)] == expected
    total = sum(int(line.rsplit(":", 1)[1]) for line in expected)
    assert lines[-1] == f"Found {total} matching lines in {len(expected)} files"


async def test_ten_thousand_file_tree_matches_rg(tree: Path) -> None:
    result = await grep(tree, pattern="needle", path=str(tree / "many"), head_limit=0)
    expected = sorted(rg("-l", "-e", "needle", "--", str(tree / "many")))
    assert len(expected) == 100 * 15
    assert listed(result) == expected


async def test_head_limit_and_offset_page_through_results(tree: Path) -> None:
    everything = listed(await grep(tree, pattern="needle", head_limit=0))
    first = str((await grep(tree, pattern="needle", head_limit=10)).content)
    assert first.splitlines()[1:11] == everything[:10]
    assert "offset=10" in first
    second = str((await grep(tree, pattern="needle", head_limit=10, offset=10)).content)
    assert second.splitlines()[1:11] == everything[10:20]
    default = str((await grep(tree, pattern="needle")).content)
    assert len(default.splitlines()) == 1 + 250 + 1


async def test_regex_errors_are_readable(tree: Path) -> None:
    result = await grep(tree, pattern="(unclosed")
    assert result.is_error and "regex parse error" in str(result.content)
    assert_says_what_to_do(result.content, "escape ( [ { . * + ? with a backslash")


async def test_malformed_inputs_are_error_results(tree: Path) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({}, "pattern must be a non-empty string"),
        ({"pattern": ""}, "pattern must be a non-empty string"),
        ({"pattern": "x", "path": str(tree / "missing")}, "pass an existing file or directory"),
        ({"pattern": "x", "output_mode": "lines"}, "one of files_with_matches, content, count"),
        ({"pattern": "x", "-C": -1}, "must be a non-negative integer"),
        ({"pattern": "x", "head_limit": "all"}, "must be a non-negative integer"),
        ({"pattern": "x", "type": "no-such-type"}, "a ripgrep type name such as py"),
        ({"pattern": "x", "-i": "yes"}, "must be true or false"),
    ]
    for case, fix in cases:
        result = await grep(tree, **case)
        assert result.is_error, case
        assert_says_what_to_do(result.content, fix)


async def test_no_match_says_so(tree: Path) -> None:
    result = await grep(tree, pattern="zzz-not-there-zzz")
    assert not result.is_error and result.content == "No files found"


async def test_content_pages_stop_rg_early_but_match_its_lines(tree: Path) -> None:
    expected = rg("--sort=path", "-n", "-e", "needle", "--", str(tree))
    first = str((await grep(tree, pattern="needle", output_mode="content", head_limit=5)).content)
    assert first.splitlines()[:5] == expected[:5]
    assert "offset=5" in first.splitlines()[5]
    second = await grep(tree, pattern="needle", output_mode="content", head_limit=5, offset=5)
    assert str(second.content).splitlines()[:5] == expected[5:10]
    tail = await grep(
        tree, pattern="needle", output_mode="content", head_limit=5, offset=len(expected) - 2
    )
    assert str(tail.content).splitlines() == expected[-2:]
