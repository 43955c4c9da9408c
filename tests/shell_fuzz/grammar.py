"""A seeded generator of hostile shell commands.

A command is a list of pipelines of simple commands (``&&``, ``||``, ``;``, ``|``, ``&``,
newlines), sometimes inside a subshell, a brace group or a control structure. A simple
command is a program from ``vocabulary`` with random options and operands, and with
probability a twist: an expansion or glob as an argument, a prefix or bare assignment, a
wrapper, a redirect, a requoted word. The same seed always gives the same commands.

Each candidate carries the programs its own literal words name in command position
(after wrappers, and after xargs). The oracle holds the command to exactly those.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from shell_fuzz import vocabulary as v


@dataclass(frozen=True, slots=True)
class Candidate:
    command: str
    programs: frozenset[str]
    origin: str


@dataclass(slots=True)
class _Words:
    text: list[str] = field(default_factory=list[str])
    programs: set[str] = field(default_factory=set[str])

    def add(self, *words: str) -> None:
        self.text.extend(words)


class Grammar:
    """``Grammar(seed).candidate(n)`` is the n-th command of that seed's stream."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def candidate(self, index: int) -> Candidate:
        words = _Words()
        text = self._list(words, depth=0)
        return Candidate(text, frozenset(words.programs), f"grammar seed={self.seed} #{index}")

    # ----------------------------------------------------------------- structure

    def _list(self, words: _Words, depth: int) -> str:
        parts = [self._pipeline(words, depth)]
        while len(parts) < 3 and self.rng.random() < 0.3:
            parts.append(self._pick(("&&", "||", ";", "&", "\n", " ; ")))
            parts.append(self._pipeline(words, depth))
        return " ".join(parts).replace(" \n ", "\n")

    def _pipeline(self, words: _Words, depth: int) -> str:
        text = self._command(words, depth)
        if self.rng.random() < 0.15:
            op = self._pick(("|", "|", "|&"))
            if self.rng.random() < 0.5:
                return f"{text} {op} {self._simple(words)}"
            target = self._pick(("xargs", "xargs -0", "xargs -I{}"))
            program = self._pick(("cat", "ls", "echo", "grep TOKEN"))
            words.programs.update({"xargs", program.split()[0]})
            return f"{text} {op} {target} {program}"
        return text

    def _command(self, words: _Words, depth: int) -> str:
        roll = self.rng.random()
        if depth < 2 and roll < 0.06:
            return f"( {self._list(words, depth + 1)} )"
        if depth < 2 and roll < 0.11:
            return f"{{ {self._list(words, depth + 1)}; }}"
        if depth < 2 and roll < 0.17:
            return self._control(words, depth + 1)
        if roll < 0.25:
            return " ".join(self._assignment() for _ in range(self.rng.randint(1, 2)))
        if roll < 0.3:
            # Files named like options (gl/--pre=cat, gl/-delete) reach programs as flags.
            words.programs.add("cd")
            return f"cd gl && {self._simple(words)} *"
        return self._simple(words)

    def _control(self, words: _Words, depth: int) -> str:
        body = self._list(words, depth)
        return self._pick(
            (
                f"if true; then {body}; fi",
                f"for f in {self._arg()}; do {body}; done",
                f"while false; do {body}; done",
                f"case x in x) {body};; esac",
                f"f() {{ {body}; }}; f",
                f"! {body}",
                f"[[ -v a[$({self._payload()})] ]] && {body}",
                f"(( a[$({self._payload()})] )); {body}",
                f"[[ -f {self._arg()} ]] && {body}",
            )
        )

    # ----------------------------------------------------------------- simple commands

    def _simple(self, words: _Words) -> str:
        parts: list[str] = []
        while self.rng.random() < 0.15:
            parts.append(self._assignment())
        if self.rng.random() < 0.15:
            wrapper = self._pick(v.WRAPPERS)
            words.programs.add(wrapper[0])
            parts.extend(self._fill(w) for w in wrapper)
        parts.extend(self._program(words))
        while self.rng.random() < 0.15:
            parts.append(self._redirect())
        return " ".join(parts)

    def _program(self, words: _Words) -> list[str]:
        roll = self.rng.random()
        if roll < 0.12:
            return self._named(words, "echo", v.PROGRAMS["echo"])
        if roll < 0.2:
            words.programs.add("npm")
            return [self._word("npm"), "run", self._fill(self._pick(v.NPM_SCRIPTS))]
        if roll < 0.4:
            return self._git(words)
        if roll < 0.45:
            return [self._pick(v.EXPANSIONS).replace("{P}", self._payload()), self._arg()]
        name = self._pick(tuple(v.PROGRAMS))
        return self._named(words, name, v.PROGRAMS[name])

    def _named(
        self, words: _Words, name: str, spec: tuple[Sequence[str], Sequence[str]]
    ) -> list[str]:
        words.programs.add(name)
        options, operands = spec
        out = [self._word(name)]
        chosen = [self._fill(self._pick(options)) for _ in range(self._count(options, 0.6))]
        out.extend(self._respell(chosen))
        for _ in range(self._count(operands, 0.7)):
            if name == "xargs":  # xargs's operand is the program it runs: a named one
                program = self._pick(operands)
                words.programs.add(program)
                out.append(program)
                continue
            out.append(
                self._arg() if self.rng.random() < 0.35 else self._fill(self._pick(operands))
            )
        return out

    def _git(self, words: _Words) -> list[str]:
        words.programs.add("git")
        out = [self._word("git")]
        if self.rng.random() < 0.25:
            out.append(self._fill(self._pick(v.GIT_GLOBAL)))
        sub = "status" if self.rng.random() < 0.3 else self._pick(tuple(v.GIT_SUBCOMMANDS))
        out.append(self._word(sub))
        options = v.GIT_SUBCOMMANDS[sub]
        for _ in range(self._count(options, 0.55)):
            out.append(self._fill(self._pick(options)))
        if self.rng.random() < 0.15:
            out.append(self._arg())
        return out

    # ----------------------------------------------------------------- words

    def _respell(self, options: list[str]) -> list[str]:
        """Spell options the other ways programs accept: GNU abbreviations of long
        options (--outp=x), clustered short flags (-rn), a value glued to its flag."""
        out: list[str] = []
        for option in options:
            roll = self.rng.random()
            long_name, eq, value = option.partition("=")
            if roll < 0.25 and long_name.startswith("--") and len(long_name) > 5:
                cut = self.rng.randint(4, len(long_name) - 1)
                out.append(long_name[:cut] + eq + value)
            elif roll < 0.45 and out and _short_flag(out[-1]) and _short_flag(option):
                out[-1] += option[1:]
            elif roll < 0.55 and out and _short_flag(out[-1]) and not option.startswith("-"):
                out[-1] += option
            else:
                out.append(option)
        return out

    def _arg(self) -> str:
        roll = self.rng.random()
        if roll < 0.35:
            return self._word(self._pick(v.PATHS))
        if roll < 0.6:
            return self._pick(v.GLOBS)
        return self._pick(v.EXPANSIONS).replace("{P}", self._payload())

    def _assignment(self) -> str:
        name = self._pick(v.ASSIGN_NAMES)
        return f"{name}={self._fill(self._pick(v.ASSIGN_VALUES))}"

    def _redirect(self) -> str:
        op = self._pick(v.REDIRECT_OPS)
        target = self._pick(v.REDIRECT_TARGETS)
        if self.rng.random() < 0.1:
            return self._pick(("2>&1", ">&2", "<<< x", "<<'EOF'\nx\nEOF\n"))
        return f"{op} {target}"

    def _word(self, word: str) -> str:
        """The word, literal still, but sometimes spelled with quotes or escapes."""
        if not word.isidentifier() and not word.replace("-", "").isalnum():
            return word
        roll = self.rng.random()
        if roll < 0.8 or len(word) < 2:
            return word
        cut = self.rng.randint(1, len(word) - 1)
        return self._pick(
            (
                f"'{word}'",
                f'"{word}"',
                f"{word[:cut]}''{word[cut:]}",
                f"{word[:cut]}\\{word[cut:]}",
                f'"{word[:cut]}"{word[cut:]}',
                f"$'{word}'",
            )
        )

    def _fill(self, text: str) -> str:
        return text.replace("{P}", self._payload())

    def _payload(self) -> str:
        return self._pick(v.PAYLOADS)

    def _count(self, pool: Sequence[str], keep_going: float) -> int:
        count = 0
        while pool and count < 4 and self.rng.random() < keep_going:
            count += 1
        return count

    def _pick(self, pool: Sequence[str]) -> str:
        return pool[self.rng.randrange(len(pool))]


def _short_flag(word: str) -> bool:
    return len(word) >= 2 and word[0] == "-" and word[1] != "-" and word[1:].isalnum()
