"""``loopwright sessions export``: a self-contained, escaped HTML timeline with a usage chart."""

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import yaml

from error_advice import assert_says_what_to_do
from loopwright.cli.viewer import build_timeline, render_session_html
from loopwright.client import run
from loopwright.messages import Usage
from loopwright.models.scripted import ScriptedModel, text, tool_call
from loopwright.options import Options
from loopwright.stores import open_store

CLI = [sys.executable, "-m", "loopwright.cli.main"]
HOSTILE_PROMPT = '<script>alert("x")</script> & </pre> check'


class Page(HTMLParser):
    """Every start tag with its attributes, and the text inside elements."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text = ""
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text += data

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]

    def with_class(self, tag: str, css_class: str) -> list[dict[str, str | None]]:
        return [a for a in self.named(tag) if css_class in (a.get("class") or "").split()]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "LOOPWRIGHT_MODEL"}
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, env=environment, timeout=60
    )


def test_export_of_a_scripted_run_shows_every_message_escaped(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text(
        yaml.safe_dump(
            [
                {
                    "text": "Looking.",
                    "tool_call": {"name": "Bash", "input": {"command": "echo '<b>x</b>'"}},
                },
                {"tool_call": {"name": "Bash", "input": {"command": "exit 4"}}},
                {"text": "Done: <i>all</i> good."},
            ]
        )
    )
    ran = cli(
        "-p", HOSTILE_PROMPT, "--model", f"scripted:{script}", "--session-id", "exported",
        "--permission-mode", "bypassPermissions", "--tools", "Bash", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr

    done = cli("sessions", "export", "exported", "-o", "page.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "page.html").read_text()
    page = Page(html)

    # Self-contained and inert: no scripts, no external resources.
    assert not page.named("script") and not page.named("link") and not page.named("img")
    assert all(not (a.get("href") or "#").startswith(("http", "//")) for a in page.named("a"))
    # Session text arrives as text, never as markup.
    assert HOSTILE_PROMPT in page.text
    assert "<b>x</b>" in page.text and "Done: <i>all</i> good." in page.text
    assert len(page.named("b")) == 2  # our own tool-name labels, not the session's <b>
    assert not page.named("i")
    # Both tool calls are collapsible, with their inputs and results, and the failure shows.
    tools = page.with_class("details", "tool")
    assert len(tools) == 2
    assert "echo '<b>x</b>'" in page.text and "Exit code 4" in page.text
    assert len(page.with_class("span", "error")) == 1
    assert page.with_class("li", "result") and page.with_class("li", "system")
    # The chart: one bar per model call, each linking to its place in the timeline.
    assert len(page.named("svg")) == 1
    links = [a["href"] for a in page.named("a")]
    assert links == ["#call-1", "#call-2", "#call-3"]
    anchors = {a.get("id") for a in page.named("li")}
    assert {"call-1", "call-2", "call-3"} <= anchors
    bars = [a for a in page.named("rect") if a.get("data-series")]
    assert {a["data-series"] for a in bars} == {"input", "output"}


def test_missing_session_is_a_clear_error(tmp_path: Path) -> None:
    done = cli("sessions", "export", "no-such-session", cwd=tmp_path)
    assert done.returncode == 1
    assert "no-such-session" in done.stderr
    assert_says_what_to_do(done.stderr, "list sessions with `loopwright sessions list`")


async def test_priced_calls_draw_a_cost_line(tmp_path: Path) -> None:
    usage = Usage(input_tokens=2_000, output_tokens=500, cache_read_input_tokens=10_000)
    model = ScriptedModel(
        [
            tool_call("Bash", command="true").with_(usage=usage),
            text("done", usage=Usage(input_tokens=3_000, output_tokens=100)),
        ],
        name="claude-sonnet-5-5",
    )
    result = await run(
        "go",
        Options(
            model=model,
            cwd=tmp_path,
            tools=["Bash"],
            permission_mode="bypassPermissions",
            setting_sources=[],
        ),
    )
    store = open_store(None, cwd=tmp_path)
    try:
        entries = await store.load(result.session_id)
    finally:
        await store.aclose()
    page = Page(render_session_html(build_timeline(result.session_id, entries)))
    assert len(page.with_class("polyline", "cost-line")) == 1
    assert len(page.named("circle")) == 2
    series = {a["data-series"] for a in page.named("rect") if a.get("data-series")}
    assert series == {"input", "cache read", "output"}
    assert result.total_cost_usd is not None
    assert f"${result.total_cost_usd:.4f}" in page.text


def test_export_to_a_path_that_cannot_be_written_says_what_to_do(tmp_path: Path) -> None:
    environment = {**os.environ, "LOOPWRIGHT_HOME": str(tmp_path / "home")}
    environment.pop("LOOPWRIGHT_MODEL", None)
    script = tmp_path / "s.yaml"
    script.write_text("- text: hi\n")
    cli = [sys.executable, "-m", "loopwright.cli.main"]
    ran = subprocess.run(
        [*cli, "-p", "go", "--model", f"scripted:{script}", "--session-id", "exp"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    target = tmp_path / "missing-dir" / "page.html"
    done = subprocess.run(
        [*cli, "sessions", "export", "exp", "-o", str(target)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"cannot write {target}" in done.stderr and "writable directory" in done.stderr
    assert "Traceback" not in done.stderr
