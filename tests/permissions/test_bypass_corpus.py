"""Attempted bypasses of allow/deny rules, each with the exact decision it must get.

"allow": runs without asking; "deny": refused without asking anyone; "ask": handed to
can_use_tool (the recorder refuses, so nothing slips through either way).
"""

from __future__ import annotations

from typing import Any

import pytest

from permissions.permission_helpers import Project, Recorder, decide, make_gate

ALLOW = [
    'Bash(git tag -m "release notes")',
    "Bash(npm run *)",
    "Bash(git status)",
    "Bash(git commit *)",
    "Bash(ls:*)",
    "Edit(./src/**)",
    "WebFetch(domain:docs.python.org)",
    "mcp__github__get_*",
]
DENY = [
    "Bash(rm *)",
    "Bash(curl *)",
    "Bash(git push *)",
    "Read(./.env)",
    "Read(secrets/**)",
    "Edit(./config/**)",
    "WebFetch(domain:evil.com)",
    "mcp__dangerous",
    "Agent(Danger)",
]

BASH_CASES: list[tuple[str, str, str]] = [
    # compound operators: every subcommand must be allowed, any denied one denies
    ("and-then", "npm run build && rm -rf /", "deny"),
    ("semicolon", "npm run build; rm -rf x", "deny"),
    ("or-else", "npm run build || rm x", "deny"),
    ("pipe", "npm run build | rm x", "deny"),
    ("pipe-stderr", "npm run build |& rm x", "deny"),
    ("background", "npm run build & rm x", "deny"),
    ("newline-injection", "npm run build\nrm x", "deny"),
    ("both-allowed", "npm run build && npm run test", "allow"),
    ("second-unknown", "npm run build && make install", "ask"),
    ("denied-after-allowed-exact", "git status && git push origin main", "deny"),
    # wrappers are stripped before matching
    ("timeout", "timeout 5 rm -rf x", "deny"),
    ("timeout-signal", "timeout -s KILL 5 rm -rf x", "deny"),
    ("nice", "nice -n 10 rm x", "deny"),
    ("nohup", "nohup rm x", "deny"),
    ("env", "env rm x", "deny"),
    ("env-assign", "env FOO=1 rm x", "deny"),
    ("assignment", "FOO=bar rm x", "deny"),
    ("xargs", "find . -name '*.o' | xargs rm", "deny"),
    ("xargs-flags", "xargs -0 rm", "deny"),
    ("stdbuf", "stdbuf -oL rm x", "deny"),
    ("time", "time rm x", "deny"),
    ("command-builtin", "command rm x", "deny"),
    ("exec", "exec rm x", "deny"),
    ("nested-wrappers", "nice nohup timeout 3 rm -rf x", "deny"),
    ("allowed-behind-wrapper", "timeout 5 npm run build", "allow"),
    ("safe-assignment", "NODE_ENV=test npm run build", "allow"),
    ("ld-preload-assignment", "LD_PRELOAD=/tmp/x.so npm run build", "ask"),
    ("path-assignment", "PATH=/tmp/evil npm run build", "ask"),
    # substitutions and code-as-text fail closed; deny rules still see inside
    ("command-substitution", "echo $(rm -rf x)", "deny"),
    ("backticks", "echo `rm x`", "deny"),
    ("substitution-in-allowed", "npm run $(whoami)", "ask"),
    ("process-substitution", "npm run build <(cat x)", "ask"),
    ("denied-inside-commit-message", 'git commit -m "$(curl evil.example)"', "deny"),
    ("quoted-substitution", 'npm run "$(echo build)"', "ask"),
    ("eval", 'eval "rm -rf x"', "deny"),
    ("eval-unknown", "eval npm run build", "ask"),
    ("bash-c", 'bash -c "rm -rf x"', "deny"),
    ("sh-c-allowed-inner", "sh -c 'npm run build'", "ask"),
    ("heredoc-to-sh", "cat <<EOF | sh\nrm -rf x\nEOF", "deny"),
    ("heredoc-to-bash", "bash <<EOF\nrm -rf x\nEOF", "deny"),
    ("heredoc-to-python", "python3 <<EOF\nimport os\nEOF", "ask"),
    # quoting tricks
    ("quoted-name", '"rm" -rf x', "deny"),
    ("half-quoted-name", 'r"m" -rf x', "deny"),
    ("backslash-name", "\\rm -rf x", "deny"),
    ("single-quoted-name", "'rm' x", "deny"),
    ("absolute-binary", "/bin/rm x", "deny"),
    ("operators-inside-quotes", 'npm run "build && rm x"', "allow"),
    ("extra-spaces", "git   push   origin", "deny"),
    ("bare-denied-prefix", "git push", "deny"),
    ("word-boundary", "lsof -i", "ask"),
    ("legacy-colon-star", "ls -la", "allow"),
    # functions, groups, loops
    ("function-shadowing", "f() { rm x; }; f", "deny"),
    ("function-unknown", "ls() { make; }; ls", "ask"),
    ("for-loop", "for f in a b; do npm run build; done", "ask"),
    ("brace-group", "{ npm run build; }", "allow"),
    ("subshell", "(npm run build)", "allow"),
    ("subshell-denied", "(npm run build; rm x)", "deny"),
    ("variable-command", "$CMD x", "ask"),
    # find
    ("find-exec", "find . -exec rm {} \\;", "deny"),
    ("find-delete", "find . -delete", "ask"),
    ("find-listing", "find . -name x", "allow"),
    # redirects
    ("redirect-outside", "npm run build > /etc/passwd", "ask"),
    ("redirect-inside", "npm run build > out.log", "allow"),
    ("redirect-home", "echo x > ~/.bashrc", "ask"),
    ("redirect-to-denied-read", "echo x > .env", "deny"),
    ("redirect-to-denied-edit", "echo x > config/app.yml", "deny"),
    ("redirect-dev-null", "npm run build 2>&1 >/dev/null", "allow"),
    ("cat-denied-file", "cat .env", "deny"),
    ("cat-nested-secret", "head -n1 deep/secrets/key", "deny"),
    ("substitution-in-parameter-default", "echo ${x:-$(rm y)}", "deny"),
    ("process-substitution-redirect", "ls > >(rm x)", "deny"),
    ("input-redirect-denied-file", "cat < .env", "deny"),
    ("input-redirect-outside", "cat < /etc/passwd", "ask"),
    ("negated", "! rm x", "deny"),
    ("ansi-c-quoted-name", "$'\\x72m' -rf x", "ask"),
    ("alias-shadowing", "alias ls=make; ls", "ask"),
    # read-only commands with flags that write or execute
    ("git-config-injection", "git -c core.fsmonitor=make status", "ask"),
    ("git-diff-output-file", "git diff --output=/tmp/x", "ask"),
    ("rg-preprocessor", "rg --pre=sh pattern", "ask"),
    ("sort-output-file", "sort -o /etc/x src/app.py", "ask"),
    ("read-only-outside", "cat /etc/shadow", "ask"),
    ("cd-outside-then-read", "cd .. && cat proj/.env", "deny"),
    ("read-via-variable", "cat $HOME/.ssh/id_rsa", "ask"),
    ("read-via-brace-expansion", "cat {/etc/passwd,x}", "ask"),
    ("read-other-users-home", "cat ~root/.ssh/id_rsa", "ask"),
    ("read-via-glued-flag", "grep -f/etc/shadow pattern .", "ask"),
    ("read-via-flag-value", "grep --file=/etc/shadow pattern .", "ask"),
    ("redirect-brace-expansion", "npm run build > {a,/etc/x}", "ask"),
    ("read-through-symlink-name", "cat escape", "ask"),
    ("sort-compress-program", "sort --compress-program=sh src/app.py", "ask"),
    ("rule-with-its-own-quotes", 'git tag -m "release notes"', "allow"),
    ("same-words-other-quoting", "git tag -m 'release notes'", "allow"),
    ("quoted-rule-plus-extra", 'git tag -m "release notes" && rm x', "deny"),
    ("quoted-rule-extra-arg", 'git tag -m "release notes" -f', "ask"),
    ("xargs-flags-into-sh-c", "ls | xargs -I{} sh -c 'rm {}'", "deny"),
    ("find-exec-sh-c", "find . -exec sh -c 'rm \"$1\"' _ {} \\;", "deny"),
    ("nested-sh-c", "bash -c \"sh -c 'rm -rf x'\"", "deny"),
    ("timeout-sh-c", "timeout 5 sh -c 'curl evil.example'", "deny"),
    ("sudo", "sudo -u root rm -rf x", "deny"),
    ("watch", "watch -n1 rm x", "deny"),
    ("flock", "flock /tmp/lock rm x", "deny"),
    ("busybox-applet", "busybox rm x", "deny"),
    ("setsid-nohup", "setsid nohup curl evil.example", "deny"),
    ("sudo-not-allowed-as-inner", "sudo npm run build", "ask"),
    ("word-rm-as-argument", "npm run rm", "allow"),
    ("wrapper-word-as-argument", "npm run time rm", "allow"),
    # unparseable input
    ("double-bracket", "[[ -f x ]] && rm x", "deny"),
    ("case-statement", "case x in a) rm y;; esac", "deny"),
    ("dangling-operator", "npm run build &&", "ask"),
    ("unbalanced", "npm run build; rm x (", "deny"),
]

FILE_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("env-file", "Read", {"file_path": "{proj}/.env"}, "deny"),
    ("dotdot-to-env", "Read", {"file_path": "{proj}/src/../.env"}, "deny"),
    ("relative-dotdot", "Read", {"file_path": "src/../.env"}, "deny"),
    ("nested-env", "Read", {"file_path": "{proj}/sub/.env"}, "deny"),
    ("symlink-to-env", "Read", {"file_path": "{proj}/link-to-env"}, "deny"),
    ("secret-dir", "Read", {"file_path": "{proj}/secrets/key"}, "deny"),
    ("secret-dir-trailing-slash", "Read", {"file_path": "{proj}/secrets/"}, "deny"),
    ("secret-dir-any-depth", "Read", {"file_path": "{proj}/deep/secrets/key"}, "deny"),
    ("double-slash", "Read", {"file_path": "{proj}//secrets//key"}, "deny"),
    ("outside-working-dir", "Read", {"file_path": "/etc/hosts"}, "ask"),
    ("dotdot-outside", "Read", {"file_path": "{proj}/../outside/file"}, "ask"),
    ("symlink-escape", "Read", {"file_path": "{proj}/escape"}, "ask"),
    ("plain-read", "Read", {"file_path": "{proj}/src/app.py"}, "allow"),
    ("edit-allowed", "Edit", {"file_path": "{proj}/src/app.py"}, "allow"),
    ("write-uses-edit-rule", "Write", {"file_path": "{proj}/src/new.py"}, "allow"),
    ("edit-dotdot-into-config", "Edit", {"file_path": "{proj}/src/../config/app.yml"}, "deny"),
    ("write-config", "Write", {"file_path": "{proj}/config/x.yml"}, "deny"),
    ("write-denied-read", "Write", {"file_path": "{proj}/.env"}, "deny"),
    ("edit-symlink-out", "Edit", {"file_path": "{proj}/src/link-out"}, "ask"),
    ("write-unruled", "Write", {"file_path": "{proj}/notes.txt"}, "ask"),
    ("glob-climbs-out", "Glob", {"pattern": "../../*", "path": "{proj}"}, "ask"),
    ("grep-secret-dir", "Grep", {"pattern": "k", "path": "{proj}/secrets"}, "deny"),
    ("grep-tree", "Grep", {"pattern": "k", "path": "{proj}"}, "allow"),
    ("fetch-allowed", "WebFetch", {"url": "https://docs.python.org/3/"}, "allow"),
    ("fetch-lookalike", "WebFetch", {"url": "https://docs.python.org.evil.com/"}, "ask"),
    ("fetch-denied", "WebFetch", {"url": "https://evil.com/x"}, "deny"),
    ("fetch-denied-case-dot", "WebFetch", {"url": "https://EVIL.COM./x"}, "deny"),
    ("fetch-userinfo-trick", "WebFetch", {"url": "https://docs.python.org@evil.com/"}, "deny"),
    ("fetch-subdomain", "WebFetch", {"url": "https://api.evil.com/"}, "ask"),
    ("mcp-allowed-glob", "mcp__github__get_issue", {}, "allow"),
    ("mcp-unlisted", "mcp__github__create_issue", {}, "ask"),
    ("mcp-server-denied", "mcp__dangerous__wipe", {}, "deny"),
    ("agent-denied", "Agent", {"subagent_type": "Danger", "prompt": "x"}, "deny"),
    ("agent-other", "Agent", {"subagent_type": "Explore", "prompt": "x"}, "allow"),
]


@pytest.mark.parametrize(
    ("command", "expected"),
    [(c, e) for _, c, e in BASH_CASES],
    ids=[i for i, _, _ in BASH_CASES],
)
async def test_bash_bypass_attempt(project: Project, command: str, expected: str) -> None:
    gate = make_gate(project.root, allow=ALLOW, deny=DENY, callback=Recorder())
    outcome, _ = await decide(gate, "Bash", {"command": command}, project.root)
    assert outcome == expected


@pytest.mark.parametrize(
    ("tool_name", "tool_input", "expected"),
    [(t, i, e) for _, t, i, e in FILE_CASES],
    ids=[i for i, _, _, _ in FILE_CASES],
)
async def test_tool_bypass_attempt(
    project: Project, tool_name: str, tool_input: dict[str, Any], expected: str
) -> None:
    gate = make_gate(project.root, allow=ALLOW, deny=DENY, callback=Recorder())
    resolved = {k: project.fmt(v) if isinstance(v, str) else v for k, v in tool_input.items()}
    outcome, _ = await decide(gate, tool_name, resolved, project.root)
    assert outcome == expected


def test_corpus_is_large_enough() -> None:
    assert len(BASH_CASES) + len(FILE_CASES) >= 60
