"""The peer SDKs' own published examples, run unchanged but for their import lines.

Each example runs as a script in a fresh process against loopwright's compat layer, with
``LOOPWRIGHT_MODEL`` pointing at the offline TestModel (``test``: it calls each offered tool
once with schema-valid arguments, then answers). The examples are read from local mirrors
of the two repositories (see ``materialise``); where there is no mirror the tests skip.

Every example listed runs to exit status 0; where an example prints something that shows
the feature it demonstrates worked, that is checked too. Examples not listed need a hosted
tool or an outside service, or are not scripts; ``NOT_RUN`` says why for each.
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from loopwright.testing import text, tool_call
from loopwright.testing.fake_openai import FakeOpenAIServer

from .materialise import (
    CLAUDE_REPO,
    OPENAI_REPO,
    Outcome,
    materialise,
    mirror,
    run_example,
)

# The fixtures run every example once (several at a time); allow for a loaded machine.
pytestmark = pytest.mark.timeout(600)

# module -> a line the run must print (None: exit status 0 is the check).
OPENAI_EXAMPLES: dict[str, str | None] = {
    "examples.agent_patterns.agents_as_tools": "Final response:",
    "examples.agent_patterns.agents_as_tools_conditional": "✓ Approved: respond_spanish",
    "examples.agent_patterns.agents_as_tools_streaming": "[stream] agent=Billing Agent",
    "examples.agent_patterns.agents_as_tools_structured": "Translator agent as tool:",
    "examples.agent_patterns.deterministic": "Outline generated",
    "examples.agent_patterns.forcing_tool_use": "=== custom ===",
    "examples.agent_patterns.human_in_the_loop": "Final Output:",
    "examples.agent_patterns.human_in_the_loop_custom_rejection": "Approval required:",
    "examples.agent_patterns.human_in_the_loop_stream": "Done!",
    "examples.agent_patterns.input_guardrails": None,
    "examples.agent_patterns.llm_as_a_judge": None,
    "examples.agent_patterns.output_guardrails": "First message passed",
    "examples.agent_patterns.parallelization": None,
    "examples.agent_patterns.routing": None,
    "examples.agent_patterns.streaming_guardrails": None,
    "examples.basic.agent_lifecycle_example": "handed off to Multiply Agent",
    "examples.basic.dynamic_system_prompt": "Assistant: success (no tool calls)",
    "examples.basic.hello_world": "success (no tool calls)",
    "examples.basic.hello_world_gpt_5": None,
    "examples.basic.hello_world_gpt_oss": None,
    "examples.basic.image_tool_output": "Image tool called",
    "examples.basic.lifecycle_example": "Handoff from Start Agent to Multiply Agent",
    "examples.basic.local_file": None,
    "examples.basic.local_image": None,
    "examples.basic.non_strict_output_type": "Error (expected):",
    "examples.basic.previous_response_id": "=== Streaming Example ===",
    "examples.basic.remote_image": None,
    "examples.basic.remote_pdf": None,
    "examples.basic.retry": None,
    "examples.basic.stream_function_call_args": "Function call streaming completed",
    "examples.basic.stream_items": "-- Tool was called: how_many_jokes",
    "examples.basic.stream_text": None,
    "examples.basic.stream_ws": None,
    "examples.basic.tools": "[debug] get_weather called",
    "examples.basic.usage_tracking": "Requests: 2",
    "examples.customer_service.main": "Handed off from Triage Agent to FAQ Agent",
    "examples.handoffs.message_filter": "Step 4 done",
    "examples.handoffs.message_filter_streaming": "Step 4 done",
    "examples.memory.sqlite_session_example": None,
    "examples.memory.memory_session_hitl_example": None,
    "examples.memory.file_hitl_example": None,
    "examples.memory.encrypted_session_example": "Encrypted envelope: __enc__=1",
    "examples.memory.compaction_session_example": "compaction (encrypted content)",
    "examples.memory.compaction_session_stateless_example": "compaction (encrypted content)",
    "examples.memory.sqlalchemy_session_example": "Total items in session: 6",
    "examples.memory.advanced_sqlite_session_example": "Switched to main branch",
    "examples.reasoning_content.runner_example": None,
    "examples.reasoning_content.gpt_oss_stream": None,
    "examples.tools.shell": None,
    "examples.tools.shell_human_in_the_loop": None,
    "examples.tools.local_shell_skill": None,
    "examples.mcp.sse_example.main": '"add":',
    "examples.mcp.streamablehttp_example.main": '"add":',
    "examples.mcp.streamablehttp_custom_client_example.main": '"get_secret_word":',
}

# Examples that bring their own endpoint (EXAMPLE_BASE_URL): each runs against a fake OpenAI
# server of its own, with no LOOPWRIGHT_MODEL, so the request really takes the example's
# route (a client on the agent, set_default_openai_client, a ModelProvider).
PROVIDER_EXAMPLES = (
    "examples.model_providers.custom_example_agent",
    "examples.model_providers.custom_example_global",
    "examples.model_providers.custom_example_provider",
)

NOT_RUN = {
    "agent_patterns/hosted_multi_agent_beta.py": "OpenAI's hosted multi-agent model",
    "basic/prompt_template.py": "a prompt stored on OpenAI's servers (prompt id)",
    "basic/retry_litellm.py, model_providers/litellm_*": (
        "LiteLLM reaching OpenRouter: a key for an outside service (LitellmModel itself runs "
        "on the optional litellm extra)"
    ),
    "basic/tool_guardrails.py": (
        "TestModel calls every tool on every prompt, so the SSN guardrail trips in the first "
        "run, which the example does not catch (the guardrails run: tests/compat)"
    ),
    "financial_research_agent, research_bot": "the hosted WebSearchTool",
    "tools/*search*, code_interpreter, image_generator, computer_use, codex*, container_*": (
        "hosted tools or outside programs (browser, Codex CLI, containers)"
    ),
    "tools/apply_patch.py": "needs a model that writes a V4A diff to tasks.md",
    "tools/programmatic_tool_calling.py": "a hosted tool type",
    "mcp/filesystem_example, get_all_mcp_tools_example, tool_filter_example": (
        "npx downloads an MCP server from the npm registry"
    ),
    "mcp/git_example": "uvx downloads mcp-server-git",
    "mcp/prompt_server": "MCP prompts (loopwright's MCP client lists tools only)",
    "mcp/*remote*, hosted_mcp/*": "remote MCP servers",
    "mcp/manager_example": "a FastAPI app and a server started by hand, not a script",
    "memory/{redis,mongodb,dapr}_session_example.py": (
        "Redis, MongoDB and Dapr servers (their sessions are not provided: SQLAlchemySession is)"
    ),
    "memory/openai_session*, hitl_session_scenario": "OpenAI-hosted conversations",
    "reasoning_content/main.py": (
        "it checks for reasoning summary deltas, which the offline TestModel does not produce "
        "(the model interface it calls, get_response / stream_response, is tested in "
        "tests/compat)"
    ),
    "model_providers/any_llm_*": "the any-llm package and an outside service",
    "realtime/*, voice/*, sandbox/*": "realtime audio, voice, sandbox services",
}

CLAUDE_EXAMPLES: dict[str, tuple[tuple[str, ...], str | None]] = {
    "examples.agents": ((), "=== Multiple Agents Example ==="),
    "examples.filesystem_agents": ((), None),
    "examples.hooks": (("all",), None),
    "examples.include_partial_messages": ((), None),
    "examples.max_budget_usd": ((), None),
    "examples.mcp_calculator": ((), None),
    "examples.plugin_example": ((), None),
    "examples.quick_start": ((), "=== With Tools Example ==="),
    "examples.setting_sources": ((), None),
    "examples.stderr_callback_example": ((), None),
    "examples.streaming_mode": ((), None),
    "examples.streaming_mode_trio": ((), "Conversation complete!"),
    "examples.system_prompt": ((), None),
    "examples.tool_permission_callback": ((), None),
    "examples.tools_option": ((), None),
}
CLAUDE_NOT_RUN = {
    "streaming_mode_ipython.py": "notebook cells (top-level await), not a script",
    "session_stores/*": "adapters for Redis, S3 and a PostgreSQL driver the project does not use",
}
# Tools the Claude examples' TestModel calls: the local ones (no web access from tests).
CLAUDE_TOOLS = "Bash,Read,Glob,Grep,Write,Edit,TodoWrite,mcp__calc__add,mcp__calc__multiply"


def _environment(root: Path, model: str) -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    return {
        "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(Path(sys.executable).parent.parent),
        "UV_OFFLINE": "1",  # the MCP examples start their servers with `uv run`
        "HOME": str(root),
        "LOOPWRIGHT_HOME": str(root / ".loopwright"),
        "LOOPWRIGHT_MODEL": model,
        "EXAMPLES_INTERACTIVE_MODE": "auto",
        "OPENAI_API_KEY": "sk-offline",  # read by AsyncOpenAI() in some examples; never used
        "ANTHROPIC_API_KEY": "sk-ant-offline",
        "PYTHONIOENCODING": "utf-8",
    }


def _run_all(root: Path, runs: dict[str, tuple[tuple[str, ...], str]]) -> dict[str, Outcome]:
    """Every example's outcome; several at a time, as each mostly waits on its own start-up."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {
            module: pool.submit(run_example, root, module, _environment(root, model), args)
            for module, (args, model) in runs.items()
        }
        return {module: future.result() for module, future in futures.items()}


@pytest.fixture(scope="module")
def openai_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    if mirror(OPENAI_REPO) is None:
        pytest.skip("no mirror of openai-agents-python here (LOOPWRIGHT_PEER_MIRRORS)")
    root = materialise(OPENAI_REPO, ["examples"], tmp_path_factory.mktemp("openai-examples"))
    return _run_all(root, {module: ((), "test") for module in OPENAI_EXAMPLES})


@pytest.fixture(scope="module")
def claude_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    if mirror(CLAUDE_REPO) is None:
        pytest.skip("no mirror of claude-agent-sdk-python here (LOOPWRIGHT_PEER_MIRRORS)")
    root = materialise(CLAUDE_REPO, ["examples"], tmp_path_factory.mktemp("claude-examples"))
    (root / "examples" / "__init__.py").touch()
    model = f"test?call_tools={CLAUDE_TOOLS}"
    return _run_all(root, {m: (args, model) for m, (args, _) in CLAUDE_EXAMPLES.items()})


@pytest.mark.parametrize("module", sorted(OPENAI_EXAMPLES))
def test_openai_agents_example_runs_unchanged(
    module: str, openai_outcomes: dict[str, Outcome]
) -> None:
    done = openai_outcomes[module]

    assert done.returncode == 0, done.stderr[-3000:]
    expected = OPENAI_EXAMPLES[module]
    if expected is not None:
        assert expected in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize("module", sorted(CLAUDE_EXAMPLES))
def test_claude_agent_sdk_example_runs_unchanged(
    module: str, claude_outcomes: dict[str, Outcome]
) -> None:
    done = claude_outcomes[module]

    assert done.returncode == 0, done.stderr[-3000:]
    expected = CLAUDE_EXAMPLES[module][1]
    if expected is not None:
        assert expected in done.stdout, done.stdout[-3000:]


@pytest.fixture(scope="module")
def provider_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Outcome, list]]:
    if mirror(OPENAI_REPO) is None:
        pytest.skip("no mirror of openai-agents-python here (LOOPWRIGHT_PEER_MIRRORS)")
    root = materialise(OPENAI_REPO, ["examples"], tmp_path_factory.mktemp("provider-examples"))
    outcomes: dict[str, tuple[Outcome, list]] = {}
    for module in PROVIDER_EXAMPLES:
        script = [tool_call("get_weather", city="Tokyo"), text("Tokyo is sunny.")]
        with FakeOpenAIServer(script) as server:
            env = _environment(root, "")
            env.update(
                EXAMPLE_BASE_URL=server.base_url,
                EXAMPLE_API_KEY="sk-example",
                EXAMPLE_MODEL_NAME="example-model",
            )
            outcomes[module] = (run_example(root, module, env), list(server.requests))
    return outcomes


@pytest.mark.parametrize("module", PROVIDER_EXAMPLES)
def test_model_provider_example_reaches_its_own_endpoint(
    module: str, provider_outcomes: dict[str, tuple[Outcome, list]]
) -> None:
    done, requests = provider_outcomes[module]

    assert done.returncode == 0, done.stderr[-3000:]
    assert "[debug] getting weather for Tokyo" in done.stdout
    assert "Tokyo is sunny." in done.stdout
    assert [r.path for r in requests] == ["/v1/chat/completions"] * 2
    assert {r.body["model"] for r in requests} == {"example-model"}
    assert all(r.headers.get("authorization") == "Bearer sk-example" for r in requests)
