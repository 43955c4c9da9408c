"""Every file a shell write can create, so it is judged where it lands.

``cp a.txt d/`` writes ``d/a.txt`` — and if the repository shipped ``d/a.txt`` as a link
to ``~/.bashrc``, that is where the bytes go. ``created_paths`` lists, for cp, mv,
install, ln, mkdir, touch and tee, each file the command can create or write: the
destination itself, the file inside a directory destination (``cp -t d a.txt`` too), and
for a recursive copy every file of the source tree under it (``cp -r tpl/. d/`` puts
``tpl``'s contents straight into ``d``). tar and unzip extractions list the archive's
members. The policy then resolves each one, every symlink followed, before judging it.
None means the set cannot be known before the command runs, which never approves.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from loopwright.permissions.shell.option_parsing import ProgramOptions, parse_options, program

_TREE_LIMIT = 2_000
_COPY_STD = " help version verbose"
_COPIERS: dict[str, ProgramOptions] = {
    "cp": program(
        "abdfHilLnPpRrsTuvxZ",
        values="tS",
        long=(
            "archive attributes-only backup[=] copy-contents dereference force "
            "interactive link no-dereference preserve[=] no-preserve= parents recursive "
            "reflink[=] remove-destination sparse= strip-trailing-slashes symbolic-link "
            "suffix= target-directory= no-target-directory update[=] one-file-system "
            "context[=] no-clobber debug keep-directory-symlink" + _COPY_STD
        ),
    ),
    "mv": program(
        "bfinTuvZ",
        values="tS",
        long=(
            "backup[=] force interactive no-clobber strip-trailing-slashes suffix= "
            "target-directory= no-target-directory update[=] context exchange "
            "no-copy debug" + _COPY_STD
        ),
    ),
    "install": program(
        "bcCdDpsTvZ",
        values="gmoStT",
        long=(
            "backup[=] compare directory group= mode= owner= preserve-timestamps strip "
            "strip-program= suffix= target-directory= no-target-directory context[=] "
            "preserve-context debug" + _COPY_STD
        ),
    ),
    "ln": program(
        "bdFfiLnPrsTv",
        values="tS",
        long=(
            "backup[=] directory force interactive logical no-dereference physical "
            "relative symbolic suffix= target-directory= no-target-directory" + _COPY_STD
        ),
    ),
}
_MAKERS: dict[str, ProgramOptions] = {
    "mkdir": program("pvZ", values="m", long="mode= parents context[=]" + _COPY_STD),
    "touch": program(
        "acfhm",
        values="dtr",
        long="date= no-create no-dereference reference= time=" + _COPY_STD,
    ),
    "tee": program("aip", long="append ignore-interrupts output-error[=]" + _COPY_STD),
}
_RECURSIVE = frozenset({"-r", "-R", "-a", "--recursive", "--archive"})
WRITERS = frozenset({*_COPIERS, *_MAKERS, "tar", "unzip"})


def created_paths(words: tuple[str, ...], base: Path) -> list[str] | None:
    """Absolute paths of every file the command may create or write (before symlinks are
    followed), [] when it writes none we can tell of, None when they cannot be known."""
    if not words:
        return []
    name = os.path.basename(words[0])
    args = list(words[1:])
    if name in _MAKERS:
        parsed = parse_options(_MAKERS[name], args)
        if parsed is None:
            return None
        return [os.path.join(base, op) for op in parsed.operands if op != "-"]
    if name in _COPIERS:
        return _copied(name, args, base)
    if name == "tar":
        return _tar(args, base)
    if name == "unzip":
        return _unzip(args, base)
    return []


def _copied(name: str, args: list[str], base: Path) -> list[str] | None:
    parsed = parse_options(_COPIERS[name], args)
    if parsed is None:
        return None
    target = _option_value(args, ("-t", "--target-directory"))
    if target is None and {"-t", "--target-directory"} & parsed.options:
        return None  # -t inside a cluster (-rt DIR): read no further
    operands = list(parsed.operands)
    if name == "install" and {"-d", "--directory"} & parsed.options:
        return [os.path.join(base, op) for op in operands]
    if target is not None:
        dest, sources, into = target, operands, True
    else:
        if len(operands) < 2:
            return []  # an error: nothing is copied
        dest, sources = operands[-1], operands[:-1]
        no_target = bool({"-T", "--no-target-directory"} & parsed.options)
        into = not no_target and (
            len(sources) > 1 or dest.endswith("/") or os.path.isdir(os.path.join(base, dest))
        )
    recursive = name == "mv" or bool(parsed.options & _RECURSIVE)
    created: list[str] = []
    for source in sources:
        landed = _landing(source, dest, into, base)
        if landed is None:
            return None
        created.append(landed)
        tree = os.path.join(base, source)
        if recursive and os.path.isdir(tree) and not os.path.islink(tree.rstrip("/")):
            inside = _tree_files(tree)
            if inside is None:
                return None
            created += [os.path.join(landed, rel) for rel in inside]
    return created


def _landing(source: str, dest: str, into: bool, base: Path) -> str | None:
    if not into:
        return os.path.join(base, dest)
    name = os.path.basename(source.rstrip("/"))
    if name == "..":
        return None
    return os.path.join(base, dest) if name in (".", "") else os.path.join(base, dest, name)


def _tree_files(tree: str) -> list[str] | None:
    found: list[str] = []
    for directory, subdirs, files in os.walk(tree):
        for entry in (*subdirs, *files):
            found.append(os.path.relpath(os.path.join(directory, entry), tree))
            if len(found) > _TREE_LIMIT:
                return None
    return found


def _option_value(args: list[str], names: tuple[str, ...]) -> str | None:
    """The value of the last ``-t DIR`` / ``-tDIR`` / ``--target-directory=DIR``."""
    value: str | None = None
    for index, word in enumerate(args):
        if word == "--":
            break
        for option in names:
            if word == option and index + 1 < len(args):
                value = args[index + 1]
            elif option.startswith("--") and word.startswith(option + "="):
                value = word.split("=", 1)[1]
            elif not option.startswith("--") and word.startswith(option) and len(word) > 2:
                value = word[2:]
    return value


def _tar(args: list[str], base: Path) -> list[str] | None:
    """Members of the archive a ``tar`` extraction unpacks (None: unknown)."""
    if not args:
        return []
    letters, values = _tar_options(args)
    extract = "x" in letters or "--extract" in values or "--get" in values
    if not extract:
        return []
    archive = values.get("f") or values.get("--file")
    directory = values.get("C") or values.get("--directory") or "."
    if archive is None or archive == "-":
        return None
    path = os.path.join(base, archive)
    if not _readable_archive(path):
        return None
    import tarfile  # only when a command extracts one: not at start-up

    members: list[tarfile.TarInfo] = []
    try:
        with tarfile.open(path) as handle:
            for member in handle:  # lazily: a huge archive is not read to its end
                members.append(member)
                if len(members) > _TREE_LIMIT:
                    break
    except (OSError, tarfile.TarError, EOFError):
        return None
    if len(members) > _TREE_LIMIT or any(m.issym() or m.islnk() for m in members):
        return None  # a link member can send the next member anywhere
    return [os.path.join(base, directory, m.name) for m in members]


_TAR_VALUES = frozenset("fCbHKLNTVXgI")


def _tar_options(args: list[str]) -> tuple[str, dict[str, str]]:
    """tar's short letters (old style ``xf A``, clusters ``-xzf A``, glued ``-fA``) and
    the values of ``f``/``C`` and long options (``--file=A``, ``--directory DIR``)."""
    letters = ""
    values: dict[str, str] = {}
    pending: list[str] = []
    for index, word in enumerate(args):
        if pending:
            values[pending.pop(0)] = word
            continue
        if word.startswith("--"):
            name, glued, value = word.partition("=")
            values[name] = value
            if not glued and name in ("--file", "--directory"):
                pending.append(name)
            continue
        if index > 0 and not word.startswith("-"):
            continue
        cluster = word[1:] if word.startswith("-") else word
        for position, letter in enumerate(cluster):
            letters += letter
            if letter in _TAR_VALUES:
                glued = cluster[position + 1 :] if word.startswith("-") else ""
                if glued:
                    values[letter] = glued
                    break
                pending.append(letter)
    return letters, values


def _unzip(args: list[str], base: Path) -> list[str] | None:
    if any(a in ("-l", "-v", "-t", "-Z", "-p", "-z") for a in args):
        return []  # listing, testing or printing: nothing is written
    operands = [a for a in args if not a.startswith("-")]
    directory = _option_value(args, ("-d",)) or "."
    if directory != "." and directory in operands:
        operands.remove(directory)
    if not operands:
        return []
    path = os.path.join(base, operands[0])
    if not _readable_archive(path):
        return None
    import zipfile  # only when a command extracts one: not at start-up

    try:
        with zipfile.ZipFile(path) as handle:
            names = handle.namelist()[: _TREE_LIMIT + 1]
    except (OSError, zipfile.BadZipFile, EOFError):
        return None
    if len(names) > _TREE_LIMIT:
        return None
    return [os.path.join(base, directory, n) for n in names]


# The archive is the repository's, so hostile: a FIFO named x.tar would block the check
# forever, and a huge compressed one would be inflated to list it. Neither is read; the
# command then counts as writing where it cannot be told (it asks).
_ARCHIVE_MAX_BYTES = 256 * 1024 * 1024


def _readable_archive(path: str) -> bool:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= _ARCHIVE_MAX_BYTES
