"""The shape of the code (issue 19): no circle of imports, and no citation of files the repository lacks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import chaodipi

PACKAGE = Path(chaodipi.__file__).resolve().parent
ROOT = PACKAGE.parent.parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every chaodipi module that ``path`` imports, those under ``if TYPE_CHECKING`` and inside functions included."""
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("chaodipi"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            if base.startswith("chaodipi"):
                out.add(base)
                out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        graph[name] = {m for m in _imports(path, name) if m in files and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_module_imports_back_what_imports_it() -> None:
    """No circle of imports anywhere in the package (a package's __init__ re-exporting its modules aside)."""
    graph = _graph()
    for name in graph:  # a package's __init__ may import its own modules: that is no circle of the rules
        graph[name] = {m for m in graph[name] if not (name.startswith(m + ".") and m in graph)}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_engine_imports_no_client_of_it() -> None:
    engine = {"cards", "rules", "trump", "units", "play", "trick", "leads", "bidding", "settlement", "levels"}
    engine |= {"log", "view", "observe", "outcome", "hand", "game", "record", "referee"}
    clients = ("chaodipi.server", "chaodipi.bots", "chaodipi.tui", "chaodipi.cli", "chaodipi.arena")
    graph = _graph()
    for name in engine:
        bad = [m for m in graph[f"chaodipi.{name}"] if m.startswith(clients)]
        assert not bad, f"chaodipi.{name} imports {bad}"


def test_comments_cite_the_repository_s_own_documents() -> None:
    """RULES.md, STYLE.md and REFEREE.md lie outside the repository: the code cites docs/rules.md, docs/referee.md."""
    outside = re.compile(r"\b(RULES|STYLE|REFEREE)\.md\b")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("src", "tests", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "test_architecture.py" and "scenarios" not in path.parts  # (tests/scenarios: upstream copies)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert not found, found
