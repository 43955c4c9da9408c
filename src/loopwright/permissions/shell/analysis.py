"""Shell command analysis: split a Bash command into the simple commands it runs.

Allow rules must match every subcommand, so anything whose effect we cannot see from the
text — command or process substitution, eval, functions, loops, heredocs fed to a shell,
``find -exec``, writes outside the working dirs, unparseable input — makes the command
*unsafe*: no allow rule matches it (fail closed). Deny rules work the other way: they
match a subcommand anywhere, including inside substitutions and ``sh -c`` strings, and
fall back to a crude split when the parser gives up.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

from loopwright.permissions.shell.collector import Collector
from loopwright.permissions.shell.literal import (
    HARMLESS_ASSIGNMENTS,
    harmless_assignment,
    word_kind,
)
from loopwright.permissions.shell.nested_code import (
    SHELLS,
    interpreter_code,
    interpreter_reads_stdin,
    shell_code,
    trap_code,
)
from loopwright.permissions.shell.normalise import normalise
from loopwright.permissions.shell.results import ShellAnalysis, SimpleCommand
from loopwright.permissions.shell.runs_programs import runner_option
from loopwright.permissions.shell.unwrap import unwrap
from loopwright.permissions.shell.words import (
    crude_split,
    deny_variants,
    expand_home,
    find_exec_commands,
    quote,
    strip_wrapper_flags,
    wrapped_suffixes,
)

MAX_COMMAND_LENGTH = 10_000

_SHELLS = SHELLS
_INTERPRETERS = _SHELLS | {"python", "python3", "perl", "ruby", "node", "php", "lua"}
_ALWAYS_UNSAFE = frozenset(
    {
        "eval",
        "source",
        ".",
        "trap",
        "alias",
        "declare",
        "typeset",
        "export",
        "set",
        "unset",
        "enable",
        "coproc",
    }
)
_FIND_EXEC = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
_SYSTEM_BIN = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/")
# git options that pick another repository rather than run a program.
_ELSEWHERE = ("-C", "--git-dir", "--work-tree")
_SAFE_REDIRECT_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_SUBSTITUTION_TEXT = re.compile(r"\$\(|`|<\(|>\(")
_OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})


def analyze(
    command: str,
    cwd: Path,
    working_dirs: tuple[Path, ...] = (),
    *,
    depth: int = 0,
    home: Path | None = None,
) -> ShellAnalysis:
    """Split ``command`` and judge whether an allow rule may approve it. With ``home``,
    ``~``, ``$HOME`` and ``"$HOME/…"`` are expanded as bash would (for deny rules and
    paths; a ``$HOME`` word still keeps allow rules off, as any expansion does)."""
    collector = Collector(cwd, working_dirs or (cwd,), source=command, home=home)
    if len(command) > MAX_COMMAND_LENGTH:
        collector.unsafe.append(f"command longer than {MAX_COMMAND_LENGTH} characters")
    # Imported here: building bashlex's parser tables takes ~100 ms, paid on the first
    # shell command a session checks rather than at start-up.
    import bashlex  # type: ignore[import-untyped]

    try:
        trees = bashlex.parse(command)
    except Exception as exc:  # bashlex raises several unrelated types
        collector.unsafe.append(f"the shell parser could not read it ({exc})")
        collector.hidden.append("the shell parser could not read the command")
        collector.deny_texts.extend(crude_split(command))
        trees = []
    for tree in trees:
        _visit(tree, collector, depth, in_substitution=False)
    if _SUBSTITUTION_TEXT.search(command) and "command substitution" not in collector.unsafe:
        # The parser does not see every nesting (e.g. inside ${x:-...}); the text does.
        collector.unsafe.append("command substitution")
        collector.deny_texts.extend(crude_split(command))
    collector.deny_texts.append(command.strip())
    return ShellAnalysis(
        command,
        tuple(collector.commands),
        tuple(dict.fromkeys(t for t in collector.deny_texts if t)),
        tuple(collector.redirects),
        tuple(collector.inputs),
        tuple(dict.fromkeys(collector.unsafe)),
        tuple(dict.fromkeys(collector.hidden)),
        tuple(dict.fromkeys(collector.programs)),
        tuple(collector.nested_commands),
        tuple(dict.fromkeys(collector.open_programs)),
    )


def _nested(text: str, out: Collector, depth: int) -> ShellAnalysis:
    """Analyse code found inside a command; its deny texts, programs and hidden code
    count as the outer command's."""
    inner = analyze(text, out.cwd, out.working_dirs, depth=depth + 1, home=out.home)
    out.deny_texts.extend(inner.deny_texts)
    out.programs.extend(inner.programs)
    out.hidden.extend(inner.hidden)
    out.redirects.extend(inner.redirect_targets)
    out.inputs.extend(inner.input_sources)
    out.open_programs.extend(inner.open_programs)
    for command in inner.all_commands:
        # The nested code runs wherever the outer line's ``cd``s have taken it.
        outer_known = out.cd_dirs is not None
        moved = (*(out.cd_dirs or ()), *command.cd_dirs)
        out.nested_commands.append(
            dataclasses.replace(
                command,
                cd_dirs=tuple(dict.fromkeys(moved)),
                cwd_known=command.cwd_known and outer_known,
            )
        )
    return inner


def _visit(node: Any, out: Collector, depth: int, *, in_substitution: bool) -> None:
    kind = node.kind
    if kind == "command":
        _visit_command(node, out, depth, in_substitution=in_substitution)
    elif kind in ("list", "pipeline"):
        was_piped = out.piped
        seen_command = False
        for part in node.parts:
            if kind == "pipeline":
                out.piped = was_piped or seen_command
                seen_command = seen_command or part.kind in ("command", "compound")
            _visit(part, out, depth, in_substitution=in_substitution)
        out.piped = was_piped
        if kind == "pipeline":
            _check_heredoc_into_interpreter(node, out)
    elif kind == "compound":
        _visit_compound(node, out, depth, in_substitution=in_substitution)
    elif kind in ("for", "while", "until", "if", "case"):
        out.unsafe.append(f"a '{kind}' construct (its commands depend on runtime values)")
        _visit_children(node, out, depth)
    elif kind == "function":
        out.unsafe.append("a function definition (it can shadow any command name)")
        _visit_children(node, out, depth)
    elif kind in ("operator", "pipe", "reservedword"):
        return
    else:
        _visit_children(node, out, depth)


def _visit_children(node: Any, out: Collector, depth: int) -> None:
    for child in list(getattr(node, "parts", []) or []) + list(getattr(node, "list", []) or []):
        _visit(child, out, depth, in_substitution=False)
    inner = getattr(node, "command", None)
    if inner is not None:
        _visit(inner, out, depth, in_substitution=False)


def _visit_compound(node: Any, out: Collector, depth: int, *, in_substitution: bool) -> None:
    opener = node.list[0].word if node.list and node.list[0].kind == "reservedword" else ""
    if opener not in ("{", "("):
        out.unsafe.append("a compound command that cannot be checked")
    for child in node.list:
        _visit(child, out, depth, in_substitution=in_substitution)
    for redirect in getattr(node, "redirects", []) or []:
        _record_redirect(redirect, out)


def _visit_command(node: Any, out: Collector, depth: int, *, in_substitution: bool) -> None:
    words: list[str] = []
    raws: list[str] = []
    positions: list[tuple[int, int]] = []
    assignments: list[str] = []
    for part in node.parts:
        raw = out.source[part.pos[0] : part.pos[1]]
        if part.kind == "assignment":
            if not words:
                assignments.append(part.word)
                if not harmless_assignment(raw):
                    name = raw.split("=", 1)[0]
                    out.unsafe.append(
                        f"it sets {name} (only {', '.join(sorted(HARMLESS_ASSIGNMENTS))} "
                        "may be set, to plain literal values)"
                    )
                    # PATH, HOME, GIT_CONFIG_*, PAGER…: what runs is no longer on the line.
                    out.hidden.append(f"it sets {name}, which can change what commands run")
            else:
                words.append(part.word)
                raws.append(raw)
                positions.append(part.pos)
                _check_literal(raw, out)
            _scan_expansions(part, out, depth)
        elif part.kind == "word":
            if not words and _has_parameter(part):
                out.unsafe.append(f"the command name {part.word!r} comes from a variable")
                out.hidden.append(f"the command name {raw!r} comes from an expansion")
            elif not words and word_kind(raw) != "literal":
                out.hidden.append(f"the command name {raw!r} expands at run time")
            if not words and word_kind(raw) == "glob":
                out.unsafe.append("a glob in the command name")
            words.append(expand_home(raw, part.word, out.home))
            raws.append(raw)
            positions.append(part.pos)
            _check_literal(raw, out)
            _scan_expansions(part, out, depth)
        elif part.kind == "redirect":
            _record_redirect(part, out)
    if not words:
        return
    real = _add_command(words, raws, positions, out, depth)
    _check_heredoc(node, real, out, depth)


def _check_literal(raw: str, out: Collector) -> None:
    if word_kind(raw) == "expanding":
        out.unsafe.append(
            f"the word {raw!r} is not literal: the shell expands it before the command "
            "runs (quote it in single quotes, or start a glob with a directory like ./)"
        )


def _check_heredoc(node: Any, words: list[str], out: Collector, depth: int) -> None:
    heredocs = [p for p in node.parts if p.kind == "redirect" and p.type in ("<<", "<<-", "<<<")]
    if not heredocs or not words or os.path.basename(words[0]) not in _INTERPRETERS:
        return
    out.unsafe.append("a heredoc fed to a shell or interpreter")
    if shell_code(words)[0] == "stdin":
        _heredoc_deny_texts(node, out, depth)
    elif os.path.basename(words[0]) not in _SHELLS:
        out.hidden.append(f"a heredoc fed to {os.path.basename(words[0])}")


def _heredoc_deny_texts(node: Any, out: Collector, depth: int = 0) -> None:
    """A heredoc or here-string that a shell reads is a script: deny rules apply to it."""
    for part in node.parts:
        if part.kind != "redirect" or part.type not in ("<<", "<<-", "<<<"):
            continue
        if part.type == "<<<":
            target = part.output
            raw = out.source[target.pos[0] : target.pos[1]] if hasattr(target, "pos") else ""
            body = getattr(target, "word", "") or ""
            if word_kind(raw) == "expanding":
                out.hidden.append("a here-string fed to a shell is not literal")
        else:
            body = getattr(getattr(part, "heredoc", None), "value", "") or ""
            if "$" in body or "`" in body:
                out.hidden.append("a heredoc fed to a shell expands before it runs")
        if depth < 3 and body:
            _nested(body, out, depth)
        elif body:
            out.hidden.append("shell code nested too deeply to check")


def _add_command(
    words: list[str],
    raws: list[str],
    positions: list[tuple[int, int]],
    out: Collector,
    depth: int,
) -> list[str]:
    """Record one simple command; returns the words of what really runs."""
    unwrapped = unwrap(words)
    stripped = unwrapped.allow_words
    # Wrappers are a prefix of the words, so the kept words are the last len(stripped).
    kept = positions[len(words) - len(stripped) :]
    source_text = out.source[kept[0][0] : kept[-1][1]] if kept else ""
    out.unsafe.extend(unwrapped.notes)
    out.hidden.extend(n for n in unwrapped.notes if n.startswith(("env sets", "env -i")))
    if unwrapped.unparsed:
        out.hidden.append("a wrapper whose options cannot be read runs a command")
    levels = [*unwrapped.levels, *wrapped_suffixes(words), strip_wrapper_flags(words)]
    variants = [*deny_variants(words, stripped), source_text]
    for level in levels:
        variants.extend(_level_texts(level, out))
    out.deny_texts.extend(variants)
    if stripped:
        _check_command(stripped, out, depth)
    real_raws = raws[len(words) - len(unwrapped.real_words) :]
    for level in levels:
        _nested_code(level, real_raws if level == unwrapped.real_words else [], out, depth)
    if unwrapped.args_from_stdin or any(word_kind(r) != "literal" for r in raws[1:]):
        out.open_programs.extend(os.path.basename(level[0]) for level in levels if level)
    if unwrapped.input_in_words and shell_code(unwrapped.real_words)[0] == "string":
        out.hidden.append("xargs -I pastes its input into a shell script")
    out.commands.append(
        SimpleCommand(
            tuple(stripped),
            tuple(variants),
            source_text,
            tuple(out.cd_dirs or ()),
            out.cd_dirs is not None,
            unwrapped.args_from_stdin,
        )
    )
    if stripped:
        _follow_cd(stripped, out)
    return unwrapped.real_words


def _level_texts(words: list[str], out: Collector) -> list[str]:
    """Deny spellings of one wrapper level: as is, and normalised (``git -C . push`` is
    ``git push``; ``sudo -u x rm`` is also ``sudo rm``)."""
    if not words:
        return []
    out.programs.append(os.path.basename(words[0]))
    texts: list[str] = []
    normalised = normalise(words)
    forms = [tuple(words)] + (list(normalised.forms) if normalised else [])
    if normalised is not None:
        out.hidden.extend(normalised.hidden)
        out.unsafe.extend(normalised.hidden)
    inner = unwrap(words)
    if len(inner.levels) > 1 and inner.levels[1]:
        forms.append((os.path.basename(words[0]), *inner.levels[1]))
    for form in forms:
        texts.append(" ".join(form))
        texts.append(" ".join(quote(w) for w in form))
    return texts


def _follow_cd(words: list[str], out: Collector) -> None:
    """Record where a ``cd`` moves later commands. Subshells and pipelines may undo it,
    so later commands are judged against the old directories *and* the new one."""
    name = os.path.basename(words[0])
    if name not in ("cd", "pushd", "popd") or out.cd_dirs is None:
        return
    args = [w for w in words[1:] if w not in ("-P", "-L", "-e", "-@", "--")]
    target = args[0] if len(args) == 1 and name != "popd" else None
    if not args and name == "cd" and out.home is not None:
        target = str(out.home)  # plain ``cd`` goes home
    if (
        target is None
        or target == "-"
        or target.startswith("~")
        or any(ch in target for ch in "$`*?[{")
    ):
        out.cd_dirs = None  # home, OLDPWD, the dir stack, an expansion: unknown
        return
    bases = [out.cwd, *out.cd_dirs]
    moved = (Path(os.path.normpath(os.path.join(str(b), target))) for b in bases)
    out.cd_dirs = list(dict.fromkeys([*out.cd_dirs, *moved]))
    if len(out.cd_dirs) > 32:
        out.cd_dirs = None  # too many possibilities to check: treat as unknown


def _check_command(words: list[str], out: Collector, depth: int) -> None:
    name = os.path.basename(words[0])
    if name in _ALWAYS_UNSAFE:
        out.unsafe.append(f"'{name}' runs text as code")
    if name == "find" and any(arg in _FIND_EXEC for arg in words[1:]):
        out.unsafe.append("find with -exec/-delete/-fprint runs or deletes beyond a listing")
    if name in ("cd", "pushd", "popd"):
        out.changes_dir = True
    if shell_code(words)[0] == "string":
        out.unsafe.append(f"'{name} -c' runs a command string")


def _nested_code(words: list[str], raws: list[str], out: Collector, depth: int) -> None:
    """Commands hidden in arguments — ``sh -c '…'``, ``eval …``, ``trap '…' EXIT``,
    ``find -exec …`` — are still commands as far as deny rules go, however deeply they are
    wrapped. Code that cannot be read from the line is recorded as hidden."""
    if not words:
        return
    if depth >= 3:
        out.hidden.append("shell code nested too deeply to check")
        return
    name = os.path.basename(words[0])
    literal = all(word_kind(r) != "expanding" for r in raws[1:])
    if name == "eval":
        _nested(" ".join(words[1:]), out, depth)
        if not literal:
            out.hidden.append("eval of text that expands at run time")
    elif (trap := trap_code(words)) is not None:
        _nested(trap, out, depth)
        if not literal:
            out.hidden.append("trap of text that expands at run time")
    elif name in _SHELLS:
        _nested_shell(words, raws, out, depth)
    elif name == "find":
        for inner in find_exec_commands(words):
            unwrapped = unwrap(inner)
            out.deny_texts.extend(deny_variants(inner, unwrapped.allow_words))
            for level in unwrapped.levels:
                out.deny_texts.extend(_level_texts(level, out))
                _nested_code(level, [], out, depth + 1)
    elif name in ("source", "."):
        out.hidden.append(f"'{name}' runs a script that is not on the line")
    elif "/" in words[0] and not os.path.normpath(words[0]).startswith(_SYSTEM_BIN):
        out.hidden.append(f"{words[0]} is a program or script from the file system")
    elif interpreter_code(words) is not None:
        out.hidden.append(f"{name} runs program text given on the line")
    elif interpreter_reads_stdin(words) and out.piped:
        out.hidden.append(f"{name} runs what a pipe feeds it")
    elif (runner := runner_option(words)) is not None and not runner.startswith(_ELSEWHERE):
        out.hidden.append(f"{name} runs another program through {runner}")


def _nested_shell(words: list[str], raws: list[str], out: Collector, depth: int) -> None:
    source, code = shell_code(words)
    name = os.path.basename(words[0])
    if source == "string":
        if code is None:
            return
        _nested(code, out, depth)
        index = len(words) - 1 - words[::-1].index(code)
        raw = raws[index] if raws and index < len(raws) else ""
        if raw and word_kind(raw) == "expanding":
            out.hidden.append(f"'{name} -c' runs text that expands at run time")
    elif source == "stdin" and out.piped:
        out.hidden.append(f"'{name}' runs commands that a pipe feeds it")
    elif source == "file" and code is not None:
        out.hidden.append(f"'{name}' runs the script {code}, which is not on the line")


def _scan_expansions(node: Any, out: Collector, depth: int) -> None:
    for part in getattr(node, "parts", []) or []:
        if part.kind == "commandsubstitution":
            out.unsafe.append("command substitution")
            _visit(part.command, out, depth, in_substitution=True)
        elif part.kind == "processsubstitution":
            out.unsafe.append("process substitution")
            _visit(part.command, out, depth, in_substitution=True)
        else:
            _scan_expansions(part, out, depth)


def _has_parameter(node: Any) -> bool:
    return any(
        p.kind in ("parameter", "commandsubstitution", "processsubstitution")
        for p in getattr(node, "parts", []) or []
    )


def _record_redirect(node: Any, out: Collector) -> None:
    rtype = node.type
    target = node.output
    if rtype == "<<" or rtype == "<<<" or rtype == "<<-":
        return
    if isinstance(target, int) or target is None:
        return
    raw = out.source[target.pos[0] : target.pos[1]] if hasattr(target, "pos") else target.word
    word: str = expand_home(raw, target.word, out.home)
    _scan_expansions(target, out, 0)
    if word in _SAFE_REDIRECT_TARGETS or word == "/dev/stdin":
        return
    # ``<>`` opens the file for reading *and* writing: it is both.
    writes = rtype in _OUTPUT_REDIRECTS or rtype == "<>"
    if writes:
        out.redirects.append(word)
    if not writes or rtype == "<>":
        out.inputs.append(word)
    if raw.startswith(("~", "$", '"$')) or any(ch in word for ch in "*?[{$`"):
        out.unsafe.append(f"a redirect to {raw!r} whose target cannot be known")
        return
    if out.changes_dir and not word.startswith("/"):
        out.unsafe.append(f"a redirect to {word!r} after a directory change")
        return
    target_path = os.path.realpath(os.path.join(str(out.cwd), word))
    roots = [os.path.realpath(str(d)) for d in out.working_dirs]
    if not any(target_path == r or target_path.startswith(r.rstrip("/") + "/") for r in roots):
        verb = "writes" if writes else "reads"
        out.unsafe.append(f"a redirect {verb} outside the working directories ({word})")


def _check_heredoc_into_interpreter(node: Any, out: Collector) -> None:
    commands = [p for p in node.parts if p.kind == "command"]
    has_heredoc = any(
        r.kind == "redirect" and r.type in ("<<", "<<-", "<<<") for c in commands for r in c.parts
    )
    names = {os.path.basename(w.word) for c in commands for w in c.parts[:1] if w.kind == "word"}
    if has_heredoc and names & _INTERPRETERS:
        out.unsafe.append("a heredoc fed to a shell or interpreter")
        for command in commands:
            _heredoc_deny_texts(command, out)
