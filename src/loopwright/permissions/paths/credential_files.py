"""Where credentials live under HOME: one list, for everything that must keep them in.

The sandbox masks every entry (sandbox/bwrap.py ``DEFAULT_MASKED_PATHS``): a directory
becomes an empty tmpfs, a file reads as empty. Entries are ``~/``-relative; a directory
masks everything under it. Add your own with ``SandboxSettings(masked_paths=...)`` or
``sandbox.filesystem.denyRead`` in settings.json.
"""

from __future__ import annotations

CREDENTIAL_FILES: tuple[str, ...] = (
    # loopwright's own API keys
    "~/.config/loopwright/env",
    # SSH and GPG keys, password stores, desktop keyrings
    "~/.ssh",
    "~/.gnupg",
    "~/.password-store",
    "~/.local/share/keyrings",
    # git and forges: the credential store (both places), gh and hub tokens
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.config/gh",
    "~/.config/hub",
    # clouds and clusters
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.kube",
    "~/.docker/config.json",
    "~/.config/doctl",
    "~/.oci",
    "~/.s3cfg",
    "~/.boto",
    "~/.config/rclone/rclone.conf",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.vault-token",
    # databases
    "~/.pgpass",
    "~/.my.cnf",
    "~/.mylogin.cnf",
    # package registries
    "~/.netrc",
    "~/.npmrc",
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.config/pip/pip.conf",
    "~/.pip/pip.conf",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.m2/settings.xml",
    "~/.gradle/gradle.properties",
    "~/.config/composer/auth.json",
    "~/.composer/auth.json",
    "~/.nuget/NuGet/NuGet.Config",
    # model providers and other agents
    "~/.claude/.credentials.json",
    "~/.cache/huggingface/token",
    "~/.huggingface/token",
)
