"""The OpenAI Agents layer lives inside its package, and its modules form no import circle
(deferred imports count: grimp sees imports inside functions too)."""

from pathlib import Path

import grimp

PACKAGE = "loopwright.compat.openai_agents"
COMPAT = Path(__file__).resolve().parents[2] / "src" / "loopwright" / "compat"


def _cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module) & modules:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return groups


def test_openai_agents_modules_form_no_import_circle() -> None:
    graph = grimp.build_graph("loopwright")
    modules = {m for m in graph.modules if m == PACKAGE or m.startswith(PACKAGE + ".")}

    assert _cycles(graph, modules) == []


def test_no_openai_implementation_module_sits_beside_the_package() -> None:
    assert sorted(p.name for p in COMPAT.glob("_openai_*.py")) == []
