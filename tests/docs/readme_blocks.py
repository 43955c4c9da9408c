"""The fenced code blocks of README.md, with how each is run.

A block says how it runs in an HTML comment just above it (invisible when rendered):

    <!-- doc-test: run -->                     run it as printed
    <!-- doc-test: anthropic=NAME openai=NAME --> ... with the fake provider servers playing
                                                tests/docs/scripts/NAME.yaml
    <!-- doc-test: run env=VAR=value -->        ... with that variable set
    <!-- doc-test: file=NAME -->                a file the other blocks use (written as is)
    <!-- doc-test: skip: REASON -->             not run, and why (e.g. it runs this suite)
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
_DIRECTIVE = re.compile(r"<!--\s*doc-test:\s*(.*?)\s*-->")


@dataclass(frozen=True, slots=True)
class Block:
    line: int
    language: str
    code: str
    directive: str | None
    skip_reason: str | None = None
    file_name: str | None = None
    scripts: dict[str, str] = field(default_factory=dict[str, str])
    env: dict[str, str] = field(default_factory=dict[str, str])

    @property
    def id(self) -> str:
        return f"README.md:{self.line}-{self.language}"


def _parse_directive(text: str | None) -> dict[str, object]:
    if text is None:
        return {}
    if text.startswith("skip:"):
        return {"skip_reason": text[len("skip:") :].strip()}
    parsed: dict[str, object] = {"scripts": {}, "env": {}}
    for token in text.split():
        key, _, value = token.partition("=")
        if key == "file":
            parsed["file_name"] = value
        elif key in ("anthropic", "openai"):
            parsed["scripts"][key] = value  # type: ignore[index]
        elif key == "env":
            name, _, env_value = value.partition("=")
            parsed["env"][name] = env_value  # type: ignore[index]
        elif key != "run":
            raise ValueError(f"README doc-test directive {text!r}: unknown {token!r}")
    return parsed


def readme_blocks(path: Path = README) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None or not opened.group(2):
            index += 1
            continue
        indent, language = opened.groups()
        end = index + 1
        while not re.match(rf"^{indent}```\s*$", lines[end]):
            end += 1
        code = textwrap.dedent("\n".join(lines[index + 1 : end])) + "\n"
        above = next((line for line in reversed(lines[:index]) if line.strip()), "")
        found = _DIRECTIVE.search(above)
        directive = found.group(1) if found else None
        blocks.append(Block(index + 1, language, code, directive, **_parse_directive(directive)))  # type: ignore[arg-type]
        index = end + 1
    return blocks
