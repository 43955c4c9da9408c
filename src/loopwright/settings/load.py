"""Setting sources: settings.json files (permissions, hooks, env) and memory files.

Files, lowest precedence first (a later file overrides scalars; lists concatenate):

    user     ~/.claude/settings.json, ~/.loopwright/settings.json
    project  <root>/.claude/settings.json, <root>/.loopwright/settings.json
    local    <root>/.claude/settings.local.json, <root>/.loopwright/settings.local.json

``<root>`` is the nearest ancestor of cwd holding ``.git`` (else cwd). Existing Claude
Code configs work unchanged; ``.loopwright/`` wins over ``.claude/`` at the same level.
A broken file raises SettingsError naming the file and the problem — never a silent skip.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

from loopwright.errors import SettingsError
from loopwright.hooks.runner import HOOK_EVENTS, HookCallback, HookMatcher, check_matcher
from loopwright.permissions.paths.read_guard import ReadGuard
from loopwright.permissions.rules import RuleSet, RuleSyntaxError
from loopwright.sandbox.config import SandboxLayer, merge_sandbox_layers, parse_sandbox_section
from loopwright.settings.memory import load_memory
from loopwright.types import PERMISSION_MODES, PermissionMode

if TYPE_CHECKING:  # import cost only: the sandbox and command hooks load when configured
    from loopwright.hooks.commands import CommandHook
    from loopwright.sandbox.bwrap import SandboxSettings

SettingSource: TypeAlias = Literal["user", "project", "local"]
SETTING_SOURCES: tuple[SettingSource, ...] = ("user", "project", "local")
# The sources that live in the checkout (a cloned repository controls them).
CHECKOUT_SOURCES: tuple[SettingSource, ...] = ("project", "local")
_CONFIG_DIRS = (".claude", ".loopwright")


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the settings sources contribute to a session."""

    project_root: Path
    rules: RuleSet = field(default_factory=RuleSet)
    default_mode: PermissionMode | None = None
    additional_directories: tuple[Path, ...] = ()
    hooks: dict[str, list[HookMatcher]] = field(default_factory=dict[str, list[HookMatcher]])
    env: dict[str, str] = field(default_factory=dict[str, str])
    # AGENTS.md / CLAUDE.md contents as one block for the system prompt ("" if none).
    memory: str = ""
    memory_files: tuple[Path, ...] = ()
    files: tuple[Path, ...] = ()  # settings files that were read, lowest precedence first
    # Entries that were ignored (with why), for the loop to show as informational messages.
    warnings: tuple[str, ...] = ()
    # permissions.disableBypassPermissionsMode = "disable" in any file.
    bypass_disabled: bool = False
    # From the files' "sandbox" sections; None when no file mentions a sandbox.
    sandbox: SandboxSettings | None = None


def find_project_root(cwd: Path) -> Path:
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return cwd


def settings_files(
    cwd: Path, sources: Sequence[SettingSource], home: Path
) -> list[tuple[SettingSource, Path, Path]]:
    """(source, file, anchor for ``/path`` rules), lowest precedence first."""
    root = find_project_root(cwd)
    out: list[tuple[SettingSource, Path, Path]] = []
    for source in SETTING_SOURCES:
        if source not in sources:
            continue
        for directory in _CONFIG_DIRS:
            match source:
                case "user":
                    out.append((source, home / directory / "settings.json", home / directory))
                case "project":
                    out.append((source, root / directory / "settings.json", root))
                case "local":
                    out.append((source, root / directory / "settings.local.json", cwd))
    return out


def load_settings(
    cwd: str | Path,
    sources: Iterable[str] = SETTING_SOURCES,
    home: str | Path | None = None,
    *,
    trust_project: bool = True,
    extra_read_deny: Sequence[str] = (),
) -> Settings:
    """Read and merge every settings file and memory file of the chosen sources.
    ``extra_read_deny`` are the session's own deny rules (``disallowed_tools``): memory
    imports honour them as well as the settings files' own.

    With ``trust_project=False`` (for repositories you did not write), the repository's
    files (project and local: both live in the checkout) keep only what restricts: deny/ask
    rules, sandbox masks. Allow rules, additionalDirectories, hooks, env, acceptEdits and
    sandbox loosening are dropped: they grant capability or run code.
    """
    cwd_path = Path(cwd).resolve()
    home_path = Path(home) if home is not None else Path.home()
    chosen = _check_sources(sources)
    root = find_project_root(cwd_path)
    merged = _Merged()
    read: list[Path] = []
    for source, path, anchor in settings_files(cwd_path, chosen, home_path):
        if not path.is_file():
            continue
        data = _read_json(path)
        layer = _parse_file(data, path, source, anchor, root, home_path)
        untrusted = source != "user" and not trust_project
        if untrusted:
            _distrust(layer, path, merged.warnings)
        if source != "user" and layer.default_mode == "bypassPermissions":
            # A repository must not be able to switch every check off by committing a file.
            merged.warnings.append(
                f"{path}: defaultMode 'bypassPermissions' is ignored in project and local "
                "settings; pass permission_mode='bypassPermissions' or set it in user settings"
            )
            layer.default_mode = None
        merged.add(layer, source)
        sandbox_base = anchor if source == "user" else root
        sandbox = parse_sandbox_section(data, path, sandbox_base, home_path)
        if untrusted:
            sandbox = _distrust_sandbox(sandbox)
        elif source != "user" and sandbox.enabled is False:
            # A checkout may add to the sandbox, never switch off one the user turned on.
            sandbox = dataclasses.replace(sandbox, enabled=None)
        merged.sandbox.append(sandbox)
        read.append(path)
    deny_rules = merged.rules + RuleSet.from_strings(
        deny=extra_read_deny, anchor=cwd_path, source="options"
    )
    guard = ReadGuard.from_rules(deny_rules.deny, cwd_path, home_path)
    memory, memory_files, memory_notices = load_memory(
        cwd_path,
        root,
        home_path,
        chosen,
        trust_project=trust_project,
        read_denied=(lambda p: guard.denied(str(p), cwd_path)) if guard.active else None,
        working_dirs=merged.directories,
    )
    return Settings(
        project_root=root,
        rules=merged.rules,
        default_mode=merged.default_mode,
        additional_directories=tuple(merged.directories),
        hooks=merged.active_hooks(),
        env=merged.env,
        memory=memory,
        memory_files=memory_files,
        files=tuple(read),
        warnings=(*merged.warnings, *merged.rules.warnings, *memory_notices),
        sandbox=merge_sandbox_layers(merged.sandbox),
        bypass_disabled=merged.disable_bypass,
    )


def _distrust(layer: _FileSettings, path: Path, warnings: list[str]) -> None:
    """Keep what only restricts; drop what grants capability or runs code: allow rules,
    extra directories, hooks (shell commands), env (PATH, LD_PRELOAD…), acceptEdits, and
    the power to switch the user's own hooks off."""
    dropped = [
        name
        for name, present in (
            ("allow rules", bool(layer.rules.allow)),
            ("additionalDirectories", bool(layer.directories)),
            ("hooks", bool(layer.hooks)),
            ("env", bool(layer.env)),
            ("defaultMode acceptEdits", layer.default_mode == "acceptEdits"),
            ("disableAllHooks", layer.disable_all_hooks is not None),
        )
        if present
    ]
    if dropped:
        warnings.append(
            f"{path}: {', '.join(dropped)} ignored because the project is not trusted "
            "(trust_project=False)"
        )
    layer.rules = RuleSet((), layer.rules.ask, layer.rules.deny, layer.rules.warnings)
    layer.directories = []
    layer.hooks = {}
    layer.env = {}
    layer.disable_all_hooks = None
    if layer.default_mode == "acceptEdits":
        layer.default_mode = None


def _distrust_sandbox(layer: SandboxLayer) -> SandboxLayer:
    """An untrusted file may turn the sandbox on or hide more paths, never loosen it."""
    return SandboxLayer(
        enabled=True if layer.enabled else None,
        deny_read=layer.deny_read,
    )


def _check_sources(sources: Iterable[str]) -> tuple[SettingSource, ...]:
    chosen = tuple(sources)
    for source in chosen:
        if source not in SETTING_SOURCES:
            raise SettingsError(
                f"unknown setting source {source!r}; use any of 'user', 'project', 'local'"
            )
    return cast(tuple[SettingSource, ...], chosen)


@dataclass(slots=True)
class _FileSettings:
    rules: RuleSet
    default_mode: PermissionMode | None
    directories: list[Path]
    hooks: dict[str, list[HookMatcher]]
    env: dict[str, str]
    disable_all_hooks: bool | None = None
    disable_bypass: bool = False


@dataclass(slots=True)
class _Merged:
    rules: RuleSet = field(default_factory=RuleSet)
    default_mode: PermissionMode | None = None
    directories: list[Path] = field(default_factory=list[Path])
    # Hooks of the user's files, and of the checkout's (project and local) files.
    user_hooks: dict[str, list[HookMatcher]] = field(default_factory=dict[str, list[HookMatcher]])
    checkout_hooks: dict[str, list[HookMatcher]] = field(
        default_factory=dict[str, list[HookMatcher]]
    )
    env: dict[str, str] = field(default_factory=dict[str, str])
    warnings: list[str] = field(default_factory=list[str])
    sandbox: list[SandboxLayer] = field(default_factory=list[SandboxLayer])
    # disableAllHooks: the user's switches every hook off; the checkout's only its own.
    user_disables_hooks: bool = False
    checkout_disables_hooks: bool | None = None
    disable_bypass: bool = False

    def add(self, layer: _FileSettings, source: SettingSource) -> None:
        if layer.disable_all_hooks is not None:
            if source == "user":
                self.user_disables_hooks = layer.disable_all_hooks
            else:
                self.checkout_disables_hooks = layer.disable_all_hooks
        # Any file may lock bypass mode away; none can unlock it again.
        self.disable_bypass = self.disable_bypass or layer.disable_bypass
        self.rules = self.rules + layer.rules
        self.default_mode = layer.default_mode or self.default_mode
        self.directories.extend(d for d in layer.directories if d not in self.directories)
        hooks = self.user_hooks if source == "user" else self.checkout_hooks
        for event, matchers in layer.hooks.items():
            hooks.setdefault(event, []).extend(matchers)
        self.env.update(layer.env)

    def active_hooks(self) -> dict[str, list[HookMatcher]]:
        """A checkout cannot switch the user's hooks off (they may be the user's policy),
        nor back on when the user switched every hook off."""
        if self.user_disables_hooks:
            return {}
        active = {event: list(matchers) for event, matchers in self.user_hooks.items()}
        if not self.checkout_disables_hooks:
            for event, matchers in self.checkout_hooks.items():
                active.setdefault(event, []).extend(matchers)
        return active


def _read_json(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read settings file {path}: {exc}") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"settings file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}. Fix the JSON or remove the file."
        ) from exc
    if not isinstance(data, dict):
        raise SettingsError(
            f"settings file {path} must contain a JSON object at the top level, "
            f"not {type(data).__name__}"
        )
    return cast(dict[str, Any], data)


def _parse_file(
    data: Mapping[str, Any], path: Path, source: str, anchor: Path, root: Path, home: Path
) -> _FileSettings:
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        raise SettingsError(f"{path}: 'permissions' must be an object")
    permissions = cast(dict[str, Any], permissions)
    lists = {key: _string_list(permissions, key, path) for key in ("allow", "ask", "deny")}
    try:
        rules = RuleSet.from_strings(
            allow=lists["allow"],
            ask=lists["ask"],
            deny=lists["deny"],
            anchor=anchor,
            source=f"{source}:{path}",
        )
    except RuleSyntaxError as exc:
        raise SettingsError(f"{path}: {exc}") from exc
    mode = permissions.get("defaultMode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise SettingsError(
            f"{path}: permissions.defaultMode {mode!r} is not one of {', '.join(PERMISSION_MODES)}"
        )
    directories = [
        (root / Path(d).expanduser()).resolve()
        for d in _string_list(permissions, "additionalDirectories", path)
    ]
    disable_hooks = data.get("disableAllHooks")
    if disable_hooks is not None and not isinstance(disable_hooks, bool):
        raise SettingsError(f"{path}: disableAllHooks must be true or false")
    lock = permissions.get("disableBypassPermissionsMode")
    if lock not in (None, "disable"):
        raise SettingsError(f"{path}: permissions.disableBypassPermissionsMode must be 'disable'")
    return _FileSettings(
        rules,
        cast(PermissionMode | None, mode),
        directories,
        parse_hooks(data.get("hooks", {}), path, root, source),
        _parse_env(data, path),
        disable_hooks,
        lock == "disable",
    )


def _string_list(data: Mapping[str, Any], key: str, path: Path) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{path}: permissions.{key} must be a list of strings")
    return cast(list[str], value)


def _parse_env(data: Mapping[str, Any], path: Path) -> dict[str, str]:
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise SettingsError(f"{path}: 'env' must be an object of NAME: value pairs")
    out: dict[str, str] = {}
    for name, value in cast(dict[str, Any], env).items():
        if isinstance(value, dict | list) or value is None:
            raise SettingsError(f"{path}: env.{name} must be a string, number or boolean")
        out[name] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def parse_hooks(
    hooks: Any, path: Path, project_dir: Path, source: str = "settings"
) -> dict[str, list[HookMatcher]]:
    """``{"Event": [{"matcher": "...", "hooks": [{"type": "command", ...}]}]}`` →
    HookMatchers holding CommandHooks."""
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: 'hooks' must be an object keyed by event name")
    out: dict[str, list[HookMatcher]] = {}
    for event, groups in cast(dict[str, Any], hooks).items():
        if event not in HOOK_EVENTS:
            raise SettingsError(
                f"{path}: unknown hook event {event!r}; use one of {', '.join(HOOK_EVENTS)}"
            )
        if not isinstance(groups, list):
            raise SettingsError(f"{path}: hooks.{event} must be a list of matcher groups")
        for index, group in enumerate(cast(list[Any], groups)):
            out.setdefault(event, []).append(
                _matcher_group(group, f"{path}: hooks.{event}[{index}]", project_dir, source)
            )
    return out


def _matcher_group(group: Any, where: str, project_dir: Path, source: str) -> HookMatcher:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        raise SettingsError(f"{where} must be an object with a 'hooks' list")
    group = cast(dict[str, Any], group)
    matcher = group.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        raise SettingsError(f"{where}.matcher must be a string")
    try:
        check_matcher(matcher)
    except ValueError as exc:
        raise SettingsError(f"{where}: {exc}") from exc
    handlers: list[HookCallback] = []
    for index, handler in enumerate(cast(list[Any], group["hooks"])):
        handlers.append(_command_hook(handler, f"{where}.hooks[{index}]", project_dir, source))
    return HookMatcher(matcher, handlers)


def _command_hook(handler: Any, where: str, project_dir: Path, source: str) -> CommandHook:
    if not isinstance(handler, dict):
        raise SettingsError(f"{where} must be an object like {{'type': 'command', ...}}")
    handler = cast(dict[str, Any], handler)
    if handler.get("type", "command") != "command":
        raise SettingsError(
            f"{where}: hook type {handler.get('type')!r} is not supported; "
            "only 'command' hooks can come from settings files"
        )
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        raise SettingsError(f"{where}: 'command' must be a non-empty string")
    timeout = handler.get("timeout")
    if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
        raise SettingsError(f"{where}: 'timeout' must be a positive number of seconds")
    args = handler.get("args")
    if args is not None and (
        not isinstance(args, list) or not all(isinstance(a, str) for a in args)
    ):
        raise SettingsError(f"{where}: 'args' must be a list of strings")
    from loopwright.hooks.commands import CommandHook  # start-up: see the imports

    return CommandHook(
        command,
        float(timeout) if timeout is not None else None,
        tuple(cast(list[str], args)) if args is not None else None,
        project_dir,
        source,
    )
