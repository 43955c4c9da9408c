"""The words the grammar draws from: programs with options from their manuals, paths of
the fixture, expansions, assignments and redirect targets.

``{P}`` in any entry stands for a payload — a command the approval never covered (it
writes a file, reads a secret or just runs); the grammar fills it in. Options that write,
run programs or read files are kept on purpose next to the harmless ones: the analyser has
to tell them apart.
"""

from __future__ import annotations

# Word lists read better packed than one word a line.
# fmt: off
PAYLOADS = ("touch pwned", "id", "cat secrets/key", "uname -a", "rm -f README.md")

# The rules the fuzzer is run around.
ALLOW_RULES = ("Bash(echo *)", "Bash(npm run *)", "Bash(git status)", "Bash(ls *)")
GIT_RULE = "Bash(git *)"
DENY_RULES = ("Read(./secrets/**)", "Read(**/.env)")
# Deny-rule profiles add these: the payload programs, and git subcommands. A denied
# program that runs anyway (an exec of it, or git with a denied subcommand) is a finding.
DENIED_PROGRAMS = ("touch", "id", "uname", "rm")
DENIED_GIT = ("commit", "push", "tag")
BASH_DENY_RULES = (
    *(f"Bash({p}:*)" for p in DENIED_PROGRAMS),
    *(f"Bash(git {sub}:*)" for sub in DENIED_GIT),
)

PATHS = (
    "src/app.py", "src/util.py", "README.md", "notes.txt", "src", ".", "..", "secrets/key",
    "secrets", ".env", "src/.env", "link-to-env", "link-out", "../outside/file", "~",
    "~/notes.txt", "$HOME/notes.txt", "/etc/passwd", ".git/config", ".git", "cfg",
    "cfg/.gitconfig", "gl", "/", "~root", "./secrets/../secrets/key", "src/../.env",
    "/proc/self/environ", "out.txt",
)
GLOBS = (
    "*", "gl/*", "s*/*", "src/*.py", ".*", "?env", "[.]env", "secret?/k*", "*/*", "**",
    "cfg/*", ".e*", "gl/--*", "gl/-*",
)
EXPANSIONS = (
    "$x", "${x}", '"$x"', "${x@P}", "${!x}", "${a[$({P})]}", "${x:$(({P}))}", "${x:$({P})}",
    "$(( a[$({P})] ))", "$((1+1))", "$[a[$({P})]]", "$'\\x74ouch' pwned", "`{P}`", "$({P})",
    '"$({P})"', "~root", "~+", "~-", "{a,b}", "{touch,pwned}", "${x/#/$({P})}",
    "${x:-$({P})}", "${#x}", "$HOME", "$PWD", "$OLDPWD", "$1", "$@", "$*", "$$", "${x^^}",
    "${x@Q}", "${x@E}", "<({P})", ">({P})", "${y[@]}", "$IFS", "${HOME}/notes.txt",
    "${x:-.env}", "${PATH%%:*}", "${BASH_ENV}",
)
ASSIGN_NAMES = (
    "x", "x", "y", "a", "HOME", "PATH", "CDPATH", "GIT_DIR", "GIT_WORK_TREE",
    "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_VALUE_0", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_SSH_COMMAND",
    "GIT_EXEC_PATH", "GIT_INDEX_FILE", "LOOPWRIGHT_CWD_FILE", "IFS", "BASH_ENV", "ENV",
    "LD_PRELOAD", "PS4", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "XDG_CONFIG_HOME",
    "RIPGREP_CONFIG_PATH", "TAR_OPTIONS", "EDITOR", "GIT_EDITOR", "TMPDIR", "TZ",
    "NODE_OPTIONS", "PYTHONPATH", "NODE_ENV", "LANG", "CI", "LC_ALL", "COLUMNS", "NO_COLOR",
)
ASSIGN_VALUES = (
    "1", "test", ".", "..", "cfg", "src", "secrets", "/tmp", "cfg/bin:/usr/bin:/bin",
    "'$({P})'", '"$({P})"', "'a[$({P})]'", "'\\$({P})'", "$x", "(1 2)", "('$({P})')", "~",
    "cfg/.gitconfig", "cfg/rgrc", "cfg/bashenv", ".git/config", "'{P}'",
    "\"'core.pager'='{P}'\"", "core.fsmonitor", "--output=out.txt", "/", "x", "''",
    "$'\\n'", "secrets/key", "../outside", "xtrace", "'$(<secrets/key)'",
)
REDIRECT_OPS = (">", ">>", "<>", "&>", "2>", ">|", "<", "2>>", "&>>", "1>")
REDIRECT_TARGETS = (
    "out.txt", ".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".mcp.json",
    "~/.bashrc", "../outside/new", "/tmp/x", "secrets/key", ".env", "src/new.py",
    "/dev/null", "$HOME/.gitconfig", ".git", "cfg/.gitconfig", ".loopwright/settings.json",
    "link-to-env", "~/.config/git/config", "$x", "/dev/stderr", ".npmrc",
)
WRAPPERS = (
    ("timeout", "5"), ("timeout", "-s", "KILL", "5"), ("nice",), ("nice", "-n", "5"),
    ("env",), ("env", "NODE_ENV=x"), ("env", "-i"), ("env", "HOME=cfg"), ("env", "-S"),
    ("env", "-C", "src"), ("command",), ("builtin",), ("exec",), ("nohup",),
    ("stdbuf", "-oL"), ("time",), ("setsid",), ("command", "-p"),
    ("env", "--chd=src"), ("env", "-iu", "x"), ("env", "--split-string"), ("exec", "-ca", "x"),
    ("setsid", "-f"),
    ("nice", "-5"), ("ionice", "-c", "3"), ("taskset", "1"), ("chrt", "-o", "0"),
)


# program -> (options, operands). Values may be glued (--opt=v) or separate.
PROGRAMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "echo": (("-n", "-e", "-E"), ("hi", "$x", "-e", "a b")),
    "ls": (
        ("-la", "-R", "--color=always", "-d", "--hide=x", "-I", "x", "--time-style=+%s",
         "-w", "80", "-1", "--dired", "-Z", "--zero", "-lL", "--format=long", "--sort=size"),
        PATHS,
    ),
    "cat": (("-n", "-A", "-v", "-s", "-E", "--show-all", "-"), PATHS),
    "head": (("-n", "1", "-c", "5", "-1", "-q", "--lines=2", "--bytes=3"), PATHS),
    "tail": (("-n", "1", "-c", "5", "-1", "--lines=2", "--pid=1"), PATHS),
    "wc": (("-l", "-c", "-w", "--files0-from=cfg/files0", "--total=always"), PATHS),
    "sort": (
        ("-r", "-n", "-u", "-o", "out.txt", "--output=out.txt", "-T", "cfg", "-S", "1M",
         "--compress-program=cat", "-k", "1", "--files0-from=cfg/files0", "-m",
         "--random-source=secrets/key", "--outp=out.txt", "-ro", "-c"),
        PATHS,
    ),
    "uniq": (("-c", "-d", "-u", "-i"), ("notes.txt", "out.txt", "secrets/key", ".git/config")),
    "cut": (("-c1-3", "-d=", "-f2", "-b1", "-c", "1", "--complement"), PATHS),
    "tr": (("-d", "-s", "-c"), ("a-z", "A-Z", "x")),
    "grep": (
        ("-r", "-R", "-n", "-i", "-l", "-c", "-e", "LW", "-f", "secrets/key", "--file=.env",
         "-d", "recurse", "--directories=recurse", "--include=*", "--exclude-dir=secrets",
         "-h", "-H", "-o", "-a", "-E", "-rn", "--recursive", "--recur", "-fsecrets/key"),
        ("TOKEN", "LW", ".", "src", "*", "secrets/key", ".env", "-", "src/app.py"),
    ),
    "rg": (
        ("--pre=cfg/hook.sh", "--pre", "cfg/hook.sh", "--pre-glob=*", "-z", "--search-zip",
         "-L", "--follow", "--hidden", "-uuu", "--no-ignore", "--files", "-g", "*",
         "--ignore-file=secrets/key", "-f", ".env", "--no-config", "-e", "TOKEN", "--pr=cat",
         "--type-add=x:*.py", "-l"),
        ("TOKEN", "LW", ".", "src", "*", "secrets", "src/app.py"),
    ),
    "find": (
        ("-name", "*.py", "-type", "f", "-maxdepth", "1", "-exec", "cat", "{}", ";",
         "-exec", "touch", "pwned", "{}", "+", "-execdir", "-ok", "-delete", "-fprint",
         "out.txt", "-fls", "-fprintf", "%p", "-print0", "-newer", "src/app.py", "-printf",
         "%p\\n", "-files0-from", "cfg/files0", "-L", "-follow", "-quit"),
        (".", "src", "secrets", "..", "~", "/", "*", "gl/*", "-H"),
    ),
    "date": (
        ("-d", "@0", "-s", "2020-01-01", "--set=2020-01-01", "-f", "secrets/key",
         "--file=.env", "-r", "src/app.py", "-u", "+%s", "--reference=.env", "--fi=.env",
         "-fsecrets/key"),
        ("+%s", "0101000020", "+%Y"),
    ),
    "cmp": (("-l", "-b", "-s", "-i", "1", "--verbose", "-n", "5"), PATHS),
    "diff": (
        ("-r", "-q", "-u", "--from-file=secrets/key", "--to-file=.env", "-N", "-X",
         "secrets/key", "--exclude-from=.env", "--ifdef=x", "-D", "x", "--label=x"),
        PATHS,
    ),
    "stat": (("-c", "%s", "--printf=%n", "-f", "-L", "--format=%s"), PATHS),
    "file": (("-z", "-C", "-m", "secrets/key", "-f", ".env", "-L", "-b", "--compile"), PATHS),
    "tree": (("-a", "-o", "out.txt", "-R", "--fromfile", "-L", "1", "-J"), PATHS),
    "du": (("-a", "-s", "-h", "--files0-from=cfg/files0", "-X", "secrets/key"), PATHS),
    "realpath": (("-e", "-m", "--relative-to=.."), PATHS),
    "readlink": (("-f", "-e", "-n"), PATHS),
    "nl": (("-ba", "-s", "x", "-v", "1"), PATHS),
    "tac": (("-r", "-s", "x"), PATHS),
    "od": (("-c", "-An", "-t", "x1", "-w4"), PATHS),
    "base64": (("-d", "-w", "0", "-i"), PATHS),
    "sha256sum": (("-c", "-b", "--tag", "--check"), PATHS),
    "md5sum": (("-c", "-b"), PATHS),
    "b2sum": (("-c", "-l", "8", "--tag"), PATHS),
    "df": (("-h", "-T", "--output=source", "-a"), PATHS),
    "egrep": (("-r", "-n", "-f", ".env", "-d", "recurse"), ("TOKEN", ".", "src")),
    "fgrep": (("-R", "-l", "--include=*"), ("TOKEN", ".", "src")),
    "seq": (("-w", "-s", ",", "-f", "%g"), ("1", "3", "$x")),
    "printf": (("-v", "x", "-v", "a[$({P})]"), ("%s\\n", "hi", "$x", "%q")),
    "which": (("-a",), ("ls", "git", "$x")),
    "type": (("-a", "-p", "-P"), ("ls", "git", "$x")),
    "id": (("-u", "-n"), ("root",)),
    "whoami": ((), ()),
    "uname": (("-a", "-r"), ()),
    "pwd": (("-P", "-L"), ()),
    "basename": (("-a", "-s", ".py"), ("src/app.py", "$x")),
    "dirname": (("-z",), ("src/app.py", "$x")),
    "test": (("-f", "-e", "-v", "-d", "-nt"), ("src/app.py", "a[$({P})]", "x", ".env")),
    "sed": (
        ("-n", "-i", "-e", "p", "-z", "--in-place", "-f", "cfg/files0", "-s", "--debug"),
        ("p", "s/a/b/w out.txt", "1e {P}", "w out.txt", "s/x/y/e", "src/app.py", ".env",
         "1r secrets/key", "R .env"),
    ),
    "awk": (
        ("-F:", "-v", "x=1", "-f", "cfg/files0", "--sandbox"),
        ("{print}", 'BEGIN{system("{P}")}', '{print > "out.txt"}', '{print | "cat"}',
         'BEGIN{while((getline l < "secrets/key")>0) print l}', "src/app.py", "NR==1"),
    ),
    "tar": (
        ("-tf", "x.tar", "-cf", "out.tar", "-xf", "--to-command={P}", "-I", "touch",
         "--checkpoint=1", "--checkpoint-action=exec={P}", "-C", "..", "-tvf", "-O"),
        ("src", "x.tar", "secrets"),
    ),
    "xargs": (("-0", "-n", "1", "-I{}", "-a", "secrets/key", "-r"), ("cat", "ls", "echo", "touch")),
    "less": (("-F", "-X", "+!touch pwned"), PATHS),
    "python3": (("-c",), ("print(1)", "import os; os.system('touch pwned')")),
    "bash": (("-c", "-p", "--norc"), ("'{P}'", "cfg/hook.sh")),
    "sh": (("-c",), ("'{P}'",)),
    "touch": (("-c", "-r", "src/app.py", "-d", "@0"), ("new.txt", ".git/config", "src/x")),
    "mkdir": (("-p", "-m", "777"), ("newdir", ".claude", ".git/hooks", "src/d")),
    "cp": (("-r", "-a", "-L", "--no-preserve=all"), ("src/app.py", "new.txt", "secrets/key")),
    "mv": (("-f", "-n", "-T"), ("src/app.py", "new.txt", ".git", "cfg")),
    "rm": (("-rf", "-f"), ("out.txt", "src", ".git")),
    "cd": ((), ("src", "..", "~", "-", "$x", "cfg", "/", "~root", "secrets")),
    "read": (("-r", "-a"), ("x", "a[$({P})]")),
    "let": ((), ("'a[$({P})]'", "x=1")),
    "hash": (("-p", "/usr/bin/touch"), ("ls", "echo")),
    "mapfile": (("-t", "-C", "touch", "-c", "1"), ("x",)),
    "true": ((), ()),
    ":": ((), ("$({P})", "${x:=1}", "${x=$({P})}")),
}
NPM_SCRIPTS = ("build", "test", "lint", "$x", "build -- --x", "${x@P}")

GIT_GLOBAL = (
    "--no-pager", "-P", "-c core.pager='{P}'", "-c core.fsmonitor='{P}'", "-C ..", "-C src",
    "--git-dir=cfg", "--work-tree=..", "--exec-path=cfg", "--config-env=core.pager=PAGER",
    "--no-optional-locks", "--literal-pathspecs", "--bare", "-C cfg", "--namespace=x",
    "-C .", "--git-dir=.git", "--work-tree=.", "-c x.y=1", "--no-pager -C .",
)
GIT_SUBCOMMANDS: dict[str, tuple[str, ...]] = {
    "status": ("-s", "-b", "--porcelain", "--ignored", "-uall", "--short", "--show-stash"),
    "log": ("-p", "--oneline", "-1", "--output=out.txt", "--ext-diff", "--textconv", "--stat",
            "--format=%H", "--show-signature", "--all", "HEAD", "--", "secrets/key", "-u"),
    "show": ("HEAD", "HEAD:secrets/key", "HEAD:.env", "HEAD:src/app.py", "--stat",
             "--name-only", "--ext-diff", "--output=out.txt", ":secrets/key"),
    "diff": ("--no-index", "secrets/key", "src/app.py", "--output=out.txt", "--ext-diff",
             "HEAD", "--cached", "--stat", "--textconv", "--", ".env", "--no-ind"),
    "blame": ("--contents", "secrets/key", "--contents=.env", "src/app.py", "-L1,1"),
    "grep": ("-e", "LW", "TOKEN", "--open-files-in-pager=touch", "-O", "--no-index", "-h"),
    "ls-files": ("-s", "-o", "--others", "-z", "--", "secrets"),
    "rev-parse": ("--show-toplevel", "--git-dir", "--local-env-vars", "HEAD"),
    "branch": ("-a", "-v", "--list", "newb", "-D", "newb", "--set-upstream-to=main"),
    "tag": ("-l", "v1", "-d", "v1"),
    "remote": ("-v", "add", "o", "../outside", "set-url"),
    "config": ("--get", "core.pager", "--list", "alias.x", "'!touch pwned'", "--global",
               "--file=.git/config", "-l", "core.hooksPath", "cfg"),
    "describe": ("--always", "--dirty"),
    "stash": ("list", "show", "-p", "push"),
    "init": ("--template=cfg", "-q", "."),
    "checkout": ("--", ".", "-b", "newb", "HEAD", "src/app.py"),
    "commit": ("-am", "msg", "--allow-empty", "-m", "x", "--no-verify"),
    "push": ("origin", "-f", "--dry-run", "../outside"),
    "add": ("-A", "."),
    "archive": ("-o", "out.zip", "HEAD", "--remote=../outside"),
    "cat-file": ("-p", "HEAD:secrets/key", "blob", "--batch", "HEAD:.env"),
    "ls-tree": ("-r", "HEAD"),
    "for-each-ref": ("--format=%(refname)",),
    "worktree": ("list", "add", "../w"),
    "maintenance": ("start", "run", "register"),
    "help": ("-a",),
    "var": ("-l", "GIT_PAGER", "GIT_EDITOR"),
    "hook": ("run", "pre-commit"),
    "fsck": (),
    "gc": ("--auto",),
    "notes": ("add", "-m", "x"),
    "update-index": ("--refresh",),
    "clean": ("-n", "-fdx"),
    "credential": ("fill",),
    "difftool": ("-y", "HEAD"),
    "fetch": ("../outside",),
    "send-email": ("HEAD",),
    "submodule": ("update",),
    "x": (),
}
# fmt: on
