"""Global options of programs with subcommands: git, terraform, kubectl, docker, npm…

A rule names a program and its subcommand (``Bash(git push:*)``); the same subcommand can
be reached with global options in front (``git -C . push``, ``terraform -chdir=. apply``,
``kubectl -n prod delete``). Each table lists a program's global options, with how many
values they take, and which of them change *where* the command acts or *what* it acts on
(another repository, namespace, cluster, daemon, prefix…). ``anywhere``: the program
accepts its global options after the subcommand too (cobra's kubectl and helm, npm).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

GlobalKind = Literal["flag", "value", "optional"]


@dataclass(frozen=True, slots=True)
class GlobalSpec:
    options: dict[str, GlobalKind] = field(default_factory=dict[str, GlobalKind])
    where: frozenset[str] = frozenset()
    anywhere: bool = False
    aliases: dict[str, str] = field(default_factory=dict[str, str])
    # make: every operand is a target (each one is a subcommand a rule may name).
    all_operands: bool = False
    # cargo +nightly: a leading +word picks a toolchain.
    plus_word: bool = False


def _table(flags: str = "", values: str = "", optional: str = "") -> dict[str, GlobalKind]:
    """Space-separated option spellings (``-C``, ``--git-dir``, ``-chdir``) by kind."""
    table: dict[str, GlobalKind] = dict.fromkeys(flags.split(), "flag")
    table.update(dict.fromkeys(values.split(), "value"))
    table.update(dict.fromkeys(optional.split(), "optional"))
    return table


_GIT = GlobalSpec(
    _table(
        flags="-p --paginate -P --no-pager --no-replace-objects --no-lazy-fetch --bare "
        "--literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs "
        "--no-optional-locks --no-advice --html-path --man-path --info-path",
        values="-C -c --config-env --git-dir --work-tree --namespace --super-prefix "
        "--list-cmds --attr-source",
        optional="--exec-path",
    ),
    where=frozenset(
        [
            "-C",
            "-c",
            "--config-env",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--super-prefix",
            "--bare",
            "--exec-path",
            "--attr-source",
        ]
    ),
)
_TERRAFORM = GlobalSpec(
    _table(flags="-help -version -h -v", values="-chdir"), where=frozenset({"-chdir"})
)
_KUBE_WHERE = (
    "-n --namespace --context --kubeconfig --cluster --user -s --server --token --as "
    "--as-group --as-uid --certificate-authority --client-certificate --client-key "
    "--tls-server-name --username --password"
)
_KUBECTL = GlobalSpec(
    _table(
        flags="--insecure-skip-tls-verify --warnings-as-errors --match-server-version "
        "--disable-compression",
        values=_KUBE_WHERE + " -v --v --request-timeout --cache-dir --profile "
        "--profile-output --log-flush-frequency --vmodule",
    ),
    where=frozenset(_KUBE_WHERE.split()),
    anywhere=True,
)
_DOCKER = GlobalSpec(
    _table(
        flags="-D --debug --tls --tlsverify",
        values="-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey",
    ),
    where=frozenset(["-H", "--host", "-c", "--context", "--config"]),
)
_NPM_WHERE = (
    "--prefix -C -g --global -w --workspace --workspaces --userconfig --globalconfig "
    "--registry --location --cache"
)
_NPM = GlobalSpec(
    _table(
        flags="-g --global --workspaces -s --silent -q --quiet -d --loglevel-verbose "
        "--dry-run -y --yes --no-color --json -f --force --offline --prefer-offline",
        values="--prefix -C -w --workspace --userconfig --globalconfig --registry "
        "--location --cache --loglevel",
    ),
    where=frozenset(_NPM_WHERE.split()),
    anywhere=True,
    aliases={
        **dict.fromkeys(
            [
                "i",
                "add",
                "in",
                "ins",
                "inst",
                "insta",
                "instal",
                "isnt",
                "isnta",
                "isntal",
                "isntall",
            ],
            "install",
        ),
        **dict.fromkeys(["un", "remove", "rm", "r", "unlink"], "uninstall"),
        **dict.fromkeys(["rum", "urn", "run-script"], "run"),
        **dict.fromkeys(["t", "tst"], "test"),
        "x": "exec",
        "c": "config",
        "ci": "clean-install",
        "up": "update",
        "upgrade": "update",
    },
)
_HELM_WHERE = (
    "-n --namespace --kube-context --kubeconfig --kube-apiserver --kube-as-user "
    "--kube-as-group --kube-token --kube-ca-file --registry-config --repository-config "
    "--repository-cache"
)
_HELM = GlobalSpec(
    _table(
        flags="--debug --kube-insecure-skip-tls-verify",
        values=_HELM_WHERE + " --burst-limit --qps --kube-tls-server-name",
    ),
    where=frozenset(_HELM_WHERE.split()),
    anywhere=True,
    aliases={"del": "uninstall", "delete": "uninstall", "un": "uninstall", "ls": "list"},
)
_CARGO = GlobalSpec(
    _table(
        flags="-v --verbose -q --quiet --frozen --locked --offline --list -vv",
        values="--color -C --config -Z --manifest-path --explain",
    ),
    where=frozenset(["-C", "--config", "-Z", "--manifest-path"]),
    plus_word=True,
    aliases={"b": "build", "c": "check", "t": "test", "r": "run", "d": "doc", "rm": "remove"},
)
_MAKE_WHERE = "-C --directory -f --file --makefile --eval -I --include-dir"
_MAKE = GlobalSpec(
    _table(
        flags="-B --always-make -d -e --environment-overrides -i --ignore-errors -k "
        "--keep-going -L --check-symlink-times -n --just-print --dry-run --recon -p "
        "--print-data-base -q --question -r --no-builtin-rules -R --no-builtin-variables "
        "-s --silent --quiet -S --no-keep-going --stop -t --touch --trace -v --version -w "
        "--print-directory --no-print-directory --warn-undefined-variables -b -m",
        values=_MAKE_WHERE + " -o --old-file --assume-old -W --what-if --new-file --assume-new",
        optional="-j --jobs -l --load-average --max-load -O --output-sync --debug",
    ),
    where=frozenset(_MAKE_WHERE.split()),
    anywhere=True,
    all_operands=True,
)

GLOBAL_SPECS: dict[str, GlobalSpec] = {
    "git": _GIT,
    "terraform": _TERRAFORM,
    "tofu": _TERRAFORM,
    "kubectl": _KUBECTL,
    "docker": _DOCKER,
    "podman": _DOCKER,
    "npm": _NPM,
    "helm": _HELM,
    "cargo": _CARGO,
    "make": _MAKE,
    "gmake": _MAKE,
}
