"""Which git invocations only read, by subcommand and option.

git can run programs through its global options (``-c``, ``--exec-path``, ``-C`` into a
repository with other hooks and config), through aliases, and through subcommand options
(``diff --ext-diff``, ``log --show-signature`` runs gpg, ``blame --contents`` reads any
file, ``diff --no-index`` compares any two files, ``--output`` writes). Only the plain
subcommands below, with the options listed, count as read-only. ``content`` says whether
the subcommand prints file contents from the repository (a tree-wide reader as far as
Read deny rules go).
"""

from __future__ import annotations

from dataclasses import dataclass

from loopwright.permissions.shell.option_parsing import ProgramOptions, program

# Global options allowed before the subcommand.
GIT_GLOBAL_OPTIONS = frozenset({"--no-pager", "-P", "--no-optional-locks", "--no-replace-objects"})

_DIFF_OUTPUT = (
    "stat[=] shortstat numstat name-only name-status summary color[=] no-color word-diff[=] "
    "color-words[=] ignore-all-space ignore-space-change ignore-blank-lines "
    "ignore-space-at-eol ignore-cr-at-eol unified= function-context minimal patience "
    "histogram diff-algorithm= find-renames[=] find-copies[=] no-renames raw patch "
    "no-patch abbrev[=] full-index binary src-prefix= dst-prefix= no-prefix "
    "diff-filter= dirstat[=] relative[=] no-relative check exit-code quiet "
    "ita-invisible-in-index patch-with-stat patch-with-raw compact-summary "
)
_REVISIONS = (
    "oneline graph all decorate[=] no-decorate abbrev-commit no-abbrev-commit date= "
    "relative-date reverse first-parent no-merges merges follow topo-order date-order "
    "author-date-order left-right cherry-pick cherry-mark cherry max-count= skip= since= "
    "after= until= before= author= committer= grep= all-match invert-grep "
    "regexp-ignore-case extended-regexp fixed-strings perl-regexp branches[=] tags[=] "
    "remotes[=] glob= exclude= full-history simplify-by-decoration ancestry-path[=] "
    "no-walk[=] do-walk boundary walk-reflogs source mailmap use-mailmap no-mailmap "
    "parents children format= pretty[=] encoding= expand-tabs[=] no-expand-tabs notes[=] "
    "no-notes full-diff diff-merges= remerge-diff log-size "
)


@dataclass(frozen=True, slots=True)
class GitSubcommand:
    options: ProgramOptions
    # Prints file contents (always, or only with one of ``content_options``).
    content: bool
    content_options: frozenset[str] = frozenset()
    # Operands are allowed only when one of these options is present (``branch --list``).
    operands_need: frozenset[str] = frozenset()


_PATCH_OPTIONS = frozenset(
    {
        "-p",
        "-u",
        "--patch",
        "--patch-with-stat",
        "--patch-with-raw",
        "--word-diff",
        "--color-words",
        "--function-context",
        "-W",
        "--full-diff",
        "--remerge-diff",
        "-U",
        "--unified",
    }
)

GIT_SUBCOMMANDS: dict[str, GitSubcommand] = {
    "status": GitSubcommand(
        program(
            "sbvz",
            values="",
            long=(
                "short branch porcelain[=] long verbose untracked-files[=] ignored[=] "
                "ignore-submodules[=] column[=] no-column ahead-behind no-ahead-behind "
                "renames no-renames find-renames[=] show-stash null"
            ),
            operands="names",
        ),
        content=False,
    ),
    "log": GitSubcommand(
        program(
            "pusgiEFzwbWRn",
            values="nSGU",
            long=_REVISIONS + _DIFF_OUTPUT,
            operands="names",
            numeric_flag=True,
        ),
        content=False,
        content_options=_PATCH_OPTIONS,
    ),
    "show": GitSubcommand(
        program(
            "pusEFzwbWR",
            values="U",
            long=_REVISIONS + _DIFF_OUTPUT,
            operands="names",
        ),
        content=True,
    ),
    "diff": GitSubcommand(
        program(
            "pusRzwbWa",
            values="U",
            long="cached staged merge-base text " + _DIFF_OUTPUT,
            operands="names",
        ),
        content=True,
    ),
    "shortlog": GitSubcommand(
        program("sne", long="summary numbered email " + _REVISIONS, operands="text"),
        content=False,
    ),
    "rev-parse": GitSubcommand(
        program(
            "q",
            long=(
                "abbrev-ref[=] short[=] show-toplevel git-dir git-common-dir "
                "absolute-git-dir is-inside-work-tree is-inside-git-dir "
                "is-bare-repository is-shallow-repository show-prefix show-cdup verify "
                "quiet symbolic-full-name symbolic all branches[=] tags[=] remotes[=] "
                "show-superproject-working-tree show-object-format[=] default="
            ),
            operands="text",
        ),
        content=False,
    ),
    "ls-files": GitSubcommand(
        program(
            "cdmoiskuzvtfe",
            values="x",
            long=(
                "cached deleted modified others ignored stage killed unmerged directory "
                "no-empty-directory eol exclude= exclude-per-directory= exclude-standard "
                "error-unmatch full-name abbrev[=] deduplicate format= sparse"
            ),
            operands="names",
        ),
        content=False,
    ),
    "blame": GitSubcommand(
        program(
            "lbtfnsepcw",
            values="L",
            long=(
                "root show-stats incremental porcelain line-porcelain show-name "
                "show-number show-email date= abbrev= encoding= color-lines color-by-age "
                "minimal first-parent since="
            ),
            operands="content",
        ),
        content=True,
    ),
    "describe": GitSubcommand(
        program(
            long=(
                "tags always long abbrev= dirty[=] broken[=] all contains exact-match "
                "candidates= match= exclude= first-parent"
            ),
            operands="text",
        ),
        content=False,
    ),
    "branch": GitSubcommand(
        program(
            "arvl",
            long=(
                "all remotes list verbose show-current contains[=] no-contains[=] "
                "merged[=] no-merged[=] points-at= sort= format= column[=] no-column "
                "color[=] no-color ignore-case abbrev= omit-empty"
            ),
            operands="text",
        ),
        content=False,
        operands_need=frozenset({"-l", "--list"}),
    ),
    "tag": GitSubcommand(
        program(
            "ln",
            long="list contains= no-contains= merged[=] no-merged[=] points-at= sort= "
            "format= column[=] no-column color[=] ignore-case",
            operands="text",
        ),
        content=False,
        operands_need=frozenset({"-l", "--list"}),
    ),
    "remote": GitSubcommand(program("v", long="verbose", operands="none"), content=False),
}
