"""Option tables of the programs that run another program (env, timeout, sudo, xargs…).

Each wrapper is read the way its own ``getopt_long`` reads it: options end at the first
operand (these programs all use ``+`` in their option strings), short options cluster
(``env -iu X``), values are glued or in the next word (``-uX``, ``--unset=X``), and long
options may be abbreviated to any unambiguous prefix (``env --chd=/``, ``--split-s``) —
since the table lists every option the wrapper has, the prefix can be resolved exactly.
``positional`` counts the operands that come before the command (``timeout DURATION``,
``chrt PRIORITY``, ``taskset MASK``, ``flock FILE``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

WrapperOptionKind = Literal["flag", "value", "optional"]


@dataclass(frozen=True, slots=True)
class WrapperSpec:
    short: dict[str, WrapperOptionKind] = field(default_factory=dict[str, WrapperOptionKind])
    long: dict[str, WrapperOptionKind] = field(default_factory=dict[str, WrapperOptionKind])
    positional: int = 0
    # ``nice -10 cmd``: a dash and digits is an option.
    numeric_flag: bool = False
    # Allow rules look past it (``nice rm`` is ``rm``); ``sudo rm`` is not ``rm``.
    transparent: bool = True
    # Options after which there is no command: the wrapper acts on its own (``-p PID``).
    no_command: frozenset[str] = frozenset()


def spec(
    flags: str = "",
    values: str = "",
    long: str = "",
    *,
    optional: str = "",
    positional: int = 0,
    numeric_flag: bool = False,
    transparent: bool = True,
    no_command: str = "",
) -> WrapperSpec:
    """``long`` is space-separated: ``name`` a flag, ``name=`` a value, ``name[=]`` optional."""
    short: dict[str, WrapperOptionKind] = {c: "flag" for c in flags}
    short.update({c: "value" for c in values})
    short.update({c: "optional" for c in optional})
    long_options: dict[str, WrapperOptionKind] = {}
    for item in long.split():
        if item.endswith("[=]"):
            long_options[item[:-3]] = "optional"
        elif item.endswith("="):
            long_options[item[:-1]] = "value"
        else:
            long_options[item] = "flag"
    return WrapperSpec(
        short,
        long_options,
        positional,
        numeric_flag,
        transparent,
        frozenset(no_command.split()),
    )


_STD = " help version"

WRAPPER_SPECS: dict[str, WrapperSpec] = {
    "env": spec(
        "i0v",
        values="uCSa",
        long=(
            "ignore-environment null unset= chdir= split-string= debug argv0= "
            "block-signal[=] default-signal[=] ignore-signal[=] list-signal-handling" + _STD
        ),
        no_command="--list-signal-handling",
    ),
    "nice": spec(values="n", long="adjustment=" + _STD, numeric_flag=True),
    "nohup": spec(long=_STD),
    "timeout": spec(
        "fpv",
        values="ks",
        long="foreground kill-after= preserve-status signal= verbose" + _STD,
        positional=1,
    ),
    "stdbuf": spec(values="ioe", long="input= output= error=" + _STD),
    "setsid": spec("cfw", long="ctty fork wait" + _STD),
    "command": spec("pvV", no_command="-v -V"),
    "builtin": spec(),
    "noglob": spec(),
    "time": spec("p"),
    "exec": spec("cl", values="a"),
    "xargs": spec(
        "0prtxo",
        values="adEILnPs",
        optional="eil",
        long=(
            "null arg-file= delimiter= eof[=] replace[=] max-lines[=] max-args= "
            "max-procs= interactive no-run-if-empty max-chars= verbose exit show-limits "
            "open-tty process-slot-var=" + _STD
        ),
    ),
    # flock FILE creates FILE: not transparent for allow rules.
    "flock": spec(
        "sexnouF",
        values="wEc",
        long=(
            "shared exclusive unlock nonblock close no-fork verbose timeout= wait= "
            "conflict-exit-code= command=" + _STD
        ),
        positional=1,
        transparent=False,
    ),
    "chrt": spec(
        "abdfiorRvpme",
        values="TPD",
        long=(
            "all-tasks batch deadline fifo idle other rr reset-on-fork verbose pid max "
            "ext sched-runtime= sched-period= sched-deadline=" + _STD
        ),
        positional=1,
        no_command="-p --pid -m --max",
    ),
    "ionice": spec(
        "t",
        values="cnpPu",
        long="class= classdata= pid= pgid= uid= ignore" + _STD,
        no_command="-p --pid -P --pgid -u --uid",
    ),
    "taskset": spec(
        "acp",
        long="all-tasks cpu-list pid" + _STD,
        positional=1,
        no_command="-p --pid",
    ),
    "sudo": spec(
        "AbEeHiKklnPSsVv",
        values="CDghpRrtTUu",
        long=(
            "askpass background edit set-home login remove-timestamp reset-timestamp "
            "list non-interactive preserve-groups stdin shell validate preserve-env[=] "
            "close-from= chdir= group= host= prompt= chroot= role= type= "
            "command-timeout= other-user= user=" + _STD
        ),
        transparent=False,
        no_command="-e --edit -l --list -v --validate -k -K --reset-timestamp "
        "--remove-timestamp -V --version -h --help",
    ),
    "doas": spec("nsL", values="uC", transparent=False, no_command="-L -C"),
}
