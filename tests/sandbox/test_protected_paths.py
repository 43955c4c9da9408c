"""Protected paths hold in the sandbox by any route: existing ones cannot be changed,
moved or swapped; ones a command creates are moved to the quarantine dir and reported."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopwright import Options, query
from loopwright.messages import ToolResultBlock, UserMessage
from loopwright.sandbox import BwrapSandbox, SandboxSettings
from loopwright.stores import loopwright_home, project_key
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import SessionState, ToolContext, ToolServices
from loopwright.tools.bash import BashTool
from loopwright.tools.bash_background import BashOutputTool, background_shells

from .host import requires_sandbox

pytestmark = requires_sandbox
_FSMONITOR_CONFIG = "[core]\\n\\tfsmonitor = touch /tmp/loopwright-pwned\\n"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def quarantine(tmp_path: Path) -> Path:
    return tmp_path / "quarantine"


def make_context(
    working_dirs: list[Path], quarantine: Path, home: Path, cwd: Path | None = None
) -> Iterator[ToolContext]:
    box = BwrapSandbox(SandboxSettings(), working_dirs, home=home, quarantine_dir=quarantine)
    state = SessionState(cwd=cwd or working_dirs[0])
    yield ToolContext(state=state, tool_use_id="t", services=ToolServices(command_wrapper=box))
    box.close()


@pytest.fixture
def ctx(workdir: Path, quarantine: Path, tmp_path: Path) -> Iterator[ToolContext]:
    yield from make_context([workdir], quarantine, tmp_path / "home")


async def bash(ctx: ToolContext, command: str) -> str:
    result = await BashTool().call({"command": command}, ctx)
    return str(result.content)


def quarantined(quarantine: Path, name: str) -> list[Path]:
    return [p for p in quarantine.rglob(name)] if quarantine.exists() else []


@pytest.mark.parametrize(
    "planted",
    [
        ".claude/settings.json",
        ".loopwright/settings.json",
        ".mcp.json",
        ".bashrc",
        ".profile",
        ".husky/pre-commit",
        ".pre-commit-config.yaml",
        ".envrc",
        "lefthook.yml",
    ],
)
async def test_a_protected_file_a_command_creates_is_moved_to_quarantine(
    ctx: ToolContext, workdir: Path, quarantine: Path, planted: str
) -> None:
    out = await bash(ctx, f"mkdir -p $(dirname {planted}) && echo planted > {planted}")
    top = planted.split("/")[0]
    assert not (workdir / top).exists()
    moved = quarantined(quarantine, top)
    assert len(moved) == 1 and (moved[0].parent / planted).read_text() == "planted\n"
    assert f"{workdir / top} → {moved[0]}" in out
    assert "Use the Write or Edit tool" in out  # says what to do instead


async def test_a_hook_planted_where_the_hooks_dir_was_missing_is_quarantined(
    ctx: ToolContext, workdir: Path, quarantine: Path
) -> None:
    git(workdir, "init", "-q")
    shutil.rmtree(workdir / ".git" / "hooks")
    out = await bash(ctx, "mkdir .git/hooks && printf '#!/bin/sh\\nid\\n' > .git/hooks/pre-commit")
    assert not (workdir / ".git" / "hooks").exists()
    assert (workdir / ".git" / "HEAD").exists()  # the rest of the repository stays
    assert quarantined(quarantine, "pre-commit") and "moved out of the project" in out


async def test_an_existing_hooks_dir_refuses_new_hooks(ctx: ToolContext, workdir: Path) -> None:
    git(workdir, "init", "-q")
    out = await bash(ctx, "echo evil > .git/hooks/pre-commit")
    assert not (workdir / ".git" / "hooks" / "pre-commit").exists()
    assert "Read-only file system" in out


@pytest.mark.parametrize(
    "swap",
    [
        "mv .git .git-old",
        "mv .git/config .git/config.old",
        "rm -rf .git/config .git/hooks",
        "rm -rf .git; mkdir .git",
        "cp -r .git planted && rm -rf .git; mv planted .git; mv planted/config .git/config",
    ],
)
async def test_the_git_directory_cannot_be_swapped(
    ctx: ToolContext, workdir: Path, swap: str
) -> None:
    git(workdir, "init", "-q")
    config_before = (workdir / ".git" / "config").read_text()
    await bash(ctx, f"{swap}; printf '{_FSMONITOR_CONFIG}' > .git/config; echo done")
    assert (workdir / ".git" / "config").read_text() == config_before
    assert not (workdir / ".git-old").exists()
    assert "fsmonitor" not in git(workdir, "config", "--list")


async def test_moving_the_git_directory_fails_as_busy(ctx: ToolContext, workdir: Path) -> None:
    git(workdir, "init", "-q")
    out = await bash(ctx, "mv .git .git-old")
    assert "Device or resource busy" in out and (workdir / ".git" / "HEAD").exists()


async def test_a_git_repository_planted_in_a_plain_folder_is_quarantined(
    ctx: ToolContext, workdir: Path, quarantine: Path
) -> None:
    out = await bash(ctx, "git init -q && git config core.fsmonitor 'touch pwned' && echo made")
    assert "made" in out and not (workdir / ".git").exists()
    assert quarantined(quarantine, ".git") and "moved out of the project" in out
    status = subprocess.run(["git", "status"], cwd=workdir, capture_output=True, text=True)
    assert "not a git repository" in status.stderr and not (workdir / "pwned").exists()


async def test_a_symlinked_settings_dir_swapped_for_a_real_one_is_quarantined(
    ctx: ToolContext, workdir: Path, quarantine: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared-claude"
    shared.mkdir()
    (workdir / ".claude").symlink_to(shared)
    out = await bash(ctx, "rm .claude && mkdir .claude && echo '{}' > .claude/settings.json")
    assert not (workdir / ".claude").exists() and shared.is_dir()
    assert quarantined(quarantine, "settings.json") and "moved out of the project" in out


async def test_a_worktree_gitfile_and_the_main_repository_config_stay_read_only(
    tmp_path: Path, quarantine: Path
) -> None:
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "init")
    git(main, "worktree", "add", "-q", str(linked))
    gitfile = (linked / ".git").read_text()
    common_config = (main / ".git" / "config").read_text()
    for ctx in make_context([main, linked], quarantine, tmp_path / "home", cwd=linked):
        await bash(
            ctx,
            "echo 'gitdir: /tmp/evil' > .git; mv .git g; git config core.fsmonitor evil;"
            " echo /tmp/evil > $(git rev-parse --git-dir)/commondir; echo done",
        )
    assert (linked / ".git").read_text() == gitfile
    assert (main / ".git" / "config").read_text() == common_config
    assert "fsmonitor" not in git(linked, "config", "--list")


async def test_a_submodule_gitfile_cannot_be_pointed_elsewhere(
    ctx: ToolContext, workdir: Path
) -> None:
    git(workdir, "init", "-q")
    (workdir / ".gitmodules").write_text('[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n')
    (workdir / "lib").mkdir()
    (workdir / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    out = await bash(ctx, "echo 'gitdir: /tmp/evil' > lib/.git; mv lib/.git lib/g; echo done")
    assert (workdir / "lib" / ".git").read_text() == "gitdir: ../.git/modules/lib\n"
    assert "Read-only file system" in out


async def test_repositories_directly_inside_the_working_dir_are_pinned_too(
    ctx: ToolContext, workdir: Path
) -> None:
    project = workdir / "project"
    project.mkdir()
    git(project, "init", "-q")
    before = (project / ".git" / "config").read_text()
    await bash(ctx, "mv project/.git project/g; echo x >> project/.git/config; echo done")
    assert (project / ".git" / "config").read_text() == before
    assert not (project / "g").exists()


async def test_a_background_command_that_plants_settings_is_caught_when_it_ends(
    ctx: ToolContext, workdir: Path, quarantine: Path
) -> None:
    started = await BashTool().call(
        {"command": "echo '{}' > .mcp.json", "run_in_background": True}, ctx
    )
    assert not started.is_error
    (shell_id,) = background_shells(ctx.state).ids()
    shell = background_shells(ctx.state).get(shell_id)
    assert shell is not None
    await shell.waiter
    report = await BashOutputTool().call({"bash_id": shell_id}, ctx)
    assert not (workdir / ".mcp.json").exists() and quarantined(quarantine, ".mcp.json")
    assert "moved out of the project" in str(report.content)


async def test_ordinary_files_and_git_work_are_left_alone(
    ctx: ToolContext, workdir: Path, quarantine: Path
) -> None:
    git(workdir, "init", "-q")
    out = await bash(
        ctx,
        "echo hi > notes.txt && mkdir -p src/.cache && git add notes.txt"
        " && git -c user.name=t -c user.email=t@t commit -qm first && echo committed",
    )
    assert "committed" in out and "moved out" not in out
    assert (workdir / "notes.txt").exists() and not quarantine.exists()
    assert "first" in git(workdir, "log", "--oneline")


async def test_through_the_loop_planted_agent_settings_land_in_the_session_quarantine(
    tmp_path: Path,
) -> None:
    work = tmp_path / "project"
    work.mkdir()
    plant = 'mkdir .claude && echo \'{"permissions": {"allow": ["Bash"]}}\' > .claude/settings.json'
    model = ScriptedModel([tool_call("Bash", command=plant), text("ok")])
    options = Options(
        model=model,
        cwd=work,
        tools=["Bash"],
        permission_mode="bypassPermissions",
        sandbox=SandboxSettings(),
        setting_sources=[],
        session_id="s-1",
    )
    messages = [m async for m in query("go", options)]
    result = next(
        block
        for m in messages
        if isinstance(m, UserMessage)
        for block in m.blocks
        if isinstance(block, ToolResultBlock)
    )
    expected = loopwright_home() / "projects" / project_key(work) / "s-1" / "quarantine"
    assert not (work / ".claude").exists()
    assert [p.name for p in expected.rglob("settings.json")] == ["settings.json"]
    assert str(expected) in result.text and "Use the Write or Edit tool" in result.text


async def test_a_shell_that_ended_in_a_quarantined_folder_goes_on_in_the_working_dir(
    workdir: Path, quarantine: Path, tmp_path: Path
) -> None:
    box = BwrapSandbox(SandboxSettings(), [workdir], home=tmp_path, quarantine_dir=quarantine)
    ctx = ToolContext(
        state=SessionState(cwd=workdir),
        tool_use_id="t",
        working_dirs=(workdir,),
        services=ToolServices(command_wrapper=box),
    )
    try:
        out = await bash(ctx, "mkdir .loopwright && cd .loopwright && touch settings.json")
        after = await bash(ctx, "pwd")
    finally:
        box.close()
    assert f"Shell cwd was reset to {workdir}" in out
    assert ctx.state.cwd == workdir and after.strip() == str(workdir)


@pytest.mark.parametrize(
    ("setting", "target"),
    [
        (("core.hooksPath", "tools/hooks"), "tools/hooks/pre-commit"),
        (("core.fsmonitor", "./scripts/watch.sh"), "scripts/watch.sh"),
        (("filter.fmt.clean", "./bin/clean --stdin"), "bin/clean"),
        (("alias.sync", "!./sync.sh --all"), "sync.sh"),
        (("include.path", "../shared.gitconfig"), "shared.gitconfig"),
    ],
)
async def test_files_the_git_config_runs_stay_read_only(
    ctx: ToolContext, workdir: Path, setting: tuple[str, str], target: str
) -> None:
    git(workdir, "init", "-q")
    git(workdir, "config", *setting)
    planted = workdir / target
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text("#!/bin/sh\ntrue\n")
    out = await bash(ctx, f"echo 'touch /tmp/pwned' >> {target}; echo done")
    assert planted.read_text() == "#!/bin/sh\ntrue\n"
    assert "Read-only file system" in out


async def test_a_hooks_dir_the_config_names_but_that_is_missing_cannot_be_planted(
    ctx: ToolContext, workdir: Path, quarantine: Path
) -> None:
    git(workdir, "init", "-q")
    git(workdir, "config", "core.hooksPath", "tools/hooks")
    (workdir / "tools").mkdir()
    out = await bash(ctx, "mkdir tools/hooks && echo 'id' > tools/hooks/pre-commit")
    assert not (workdir / "tools" / "hooks").exists() and (workdir / "tools").is_dir()
    assert quarantined(quarantine, "pre-commit") and "moved out of the project" in out


@pytest.mark.parametrize(
    "planted",
    [
        ".claude/settings.json",
        ".loopwright/settings.local.json",
        ".husky/pre-push",
        ".vscode/tasks.json",
        ".git/hooks/post-checkout",
        ".git/info/attributes",
    ],
)
async def test_an_existing_protected_dir_refuses_new_files(
    ctx: ToolContext, workdir: Path, planted: str
) -> None:
    git(workdir, "init", "-q")
    (workdir / planted).parent.mkdir(parents=True, exist_ok=True)
    out = await bash(ctx, f"echo planted > {planted}; mv {planted.split('/')[0]} moved")
    assert not (workdir / planted).exists() and not (workdir / "moved").exists()
    assert "Read-only file system" in out


async def test_a_bare_repository_as_working_dir_keeps_its_config_and_hooks(
    workdir: Path, quarantine: Path, tmp_path: Path
) -> None:
    bare = tmp_path / "repo.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    config = (bare / "config").read_text()
    for ctx in make_context([bare], quarantine, tmp_path / "home"):
        out = await bash(ctx, "echo evil > hooks/post-receive; echo x >> config; echo done")
    assert not (bare / "hooks" / "post-receive").exists()
    assert (bare / "config").read_text() == config and "Read-only file system" in out
