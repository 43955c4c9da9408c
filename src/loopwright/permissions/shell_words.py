"""Words of one shell command: wrappers to look past, spellings to match, crude splits.

Kept apart from the parser walk in shell.py: these are pure functions over word lists.
"""

from __future__ import annotations

import os
import re
import shlex

from loopwright.permissions.shell_literal import harmless_assignment

# Wrappers that run their argument as the real command.
WRAPPERS = frozenset(
    {
        "timeout",
        "time",
        "nice",
        "nohup",
        "stdbuf",
        "command",
        "builtin",
        "noglob",
        "env",
        "xargs",
        "exec",
    }
)
# Programs that run their arguments as a command; deny rules look past them (allow rules
# only look past the plain wrappers above: ``sudo rm`` is not ``rm`` for an allow rule).
EXEC_WRAPPERS = WRAPPERS | {
    "sudo",
    "doas",
    "watch",
    "setsid",
    "ionice",
    "flock",
    "chrt",
    "taskset",
    "unbuffer",
    "busybox",
    "strace",
    "ltrace",
    "nsenter",
    "unshare",
    "chroot",
    "su",
    "runuser",
    "parallel",
    "script",
    "firejail",
    "proxychains",
    "torsocks",
    "caffeinate",
}


def crude_split(command: str) -> list[str]:
    """Best-effort pieces for deny matching when the parser fails: split on operators and
    substitution brackets, then strip quotes and wrappers from each piece."""
    pieces = re.split(r"\|\||&&|[;|&\n(){}`]|\$\(|<\(|>\(", command)
    out: list[str] = []
    for piece in pieces:
        words = [w.strip("'\"") for w in piece.split()]
        while words and ("=" in words[0] or words[0] in WRAPPERS):
            words = words[1:]
        if words:
            out.append(" ".join(words))
            out.append(" ".join([os.path.basename(words[0]), *words[1:]]))
    return out


def deny_variants(words: list[str], stripped: list[str]) -> list[str]:
    variants: list[str] = []
    for candidate in (words, stripped, strip_wrapper_flags(words), *wrapped_suffixes(words)):
        if not candidate:
            continue
        variants.append(" ".join(candidate))
        variants.append(" ".join(quote(w) for w in candidate))
        base = os.path.basename(candidate[0])
        if base != candidate[0]:
            variants.append(" ".join([base, *candidate[1:]]))
    return variants


def wrapped_suffixes(words: list[str]) -> list[list[str]]:
    """After any program that runs its arguments (sudo, watch, flock…), every later
    non-flag word may start the real command; deny rules try each such tail."""
    if not words or os.path.basename(words[0]) not in EXEC_WRAPPERS:
        return []
    return [words[j:] for j in range(1, len(words)) if not words[j].startswith("-")]


def strip_wrappers(words: list[str]) -> tuple[list[str], list[str]]:
    """Remove timeout/nice/nohup/env/… and their options; returns (words, unsafe notes)."""
    notes: list[str] = []
    current = list(words)
    for _ in range(8):  # wrappers can nest: nice nohup timeout 5 cmd
        if not current:
            break
        name, args = current[0], current[1:]
        match name:
            case "timeout":
                rest = _skip_options(args, with_value={"-s", "--signal", "-k", "--kill-after"})
                current = rest[1:] if rest else []
            case "nice":
                current = _skip_options(args, with_value={"-n", "--adjustment"})
            case "stdbuf":
                current = _skip_options(args, with_value={"-i", "-o", "-e"})
            case "time" | "nohup" | "noglob" | "builtin":
                current = _skip_options(args, with_value=set())
            case "exec":
                current = _skip_options(args, with_value={"-a"})
            case "command":
                if args and args[0] in ("-v", "-V"):
                    return current, notes  # a lookup, not a run
                current = _skip_options(args, with_value=set())
            case "env":
                if any(_env_reshapes(arg) for arg in args if arg.startswith("-")):
                    # -S splits a string into a new command line; -C runs it elsewhere.
                    notes.append("env -S/-C changes what runs or where it runs")
                rest = _skip_options(args, with_value={"-u", "--unset", "-C", "--chdir", "-S"})
                bad = [
                    w.split("=", 1)[0]
                    for w in rest
                    if "=" in w and not w.startswith("-") and not harmless_assignment(w)
                ]
                if bad:
                    notes.append(f"env sets {', '.join(bad)} for the command")
                while rest and "=" in rest[0]:
                    rest = rest[1:]
                current = rest
            case "xargs":
                if args and args[0].startswith("-"):
                    # Only bare xargs is transparent; with flags it is its own command.
                    return current, notes
                current = args
            case _:
                break
    return current, notes


def _env_reshapes(flag: str) -> bool:
    if flag.startswith("--"):
        return flag.startswith(("--split-string", "--chdir"))
    return "S" in flag or "C" in flag.split("u", 1)[0]


def strip_wrapper_flags(words: list[str]) -> list[str]:
    """Aggressive stripping for deny matching: drop every leading wrapper and its flags."""
    current = list(words)
    while current and (current[0] in WRAPPERS or "=" in current[0]):
        current = current[1:]
        while current and (current[0].startswith("-") or current[0][:1].isdigit()):
            current = current[1:]
    return current


def _skip_options(args: list[str], *, with_value: set[str]) -> list[str]:
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        if args[index] == "--":
            return args[index + 1 :]
        index += 2 if args[index] in with_value else 1
    return args[index:]


def find_exec_commands(words: list[str]) -> list[list[str]]:
    found: list[list[str]] = []
    for index, arg in enumerate(words):
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            inner: list[str] = []
            for word in words[index + 1 :]:
                if word in (";", "+", "\\;"):
                    break
                inner.append(word)
            if inner:
                found.append(inner)
    return found


def quote(word: str, *, double: bool = False) -> str:
    if word and re.fullmatch(r"[\w@%+=:,./~^-]*", word):
        return word
    if double and not any(ch in word for ch in '"$`\\!'):
        return f'"{word}"'
    return shlex.quote(word)
