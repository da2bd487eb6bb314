"""Import hygiene of the package, read from the source with `ast` (no import side effects): one import namespace
(`agenticvbench.*`, never the bare top-level `verifiers` / `ground_truth`) and no import cycles between modules."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "agenticvbench"
BARE = {"verifiers", "ground_truth"}


def _py_files(*roots: Path) -> Iterator[Path]:
    """Python files under each root, verifiers and ground truth included."""
    for root in roots:
        for folder, dirs, files in os.walk(root, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            yield from (Path(folder) / f for f in sorted(files) if f.endswith(".py"))


def _module_name(path: Path) -> str:
    """Dotted name of a file under agenticvbench/."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """Every module name a file imports, wherever the import statement is (top level, function body or
    `if TYPE_CHECKING:`), relative imports resolved; `from X import y` also yields `X.y` (y may be a module)."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_pkg else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            yield base, node.lineno
            for alias in node.names:
                yield f"{base}.{alias.name}", node.lineno


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in _py_files(PACKAGE)}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        for name, _ in _imports(path, module):
            if name in files and name != module and not module.startswith(name + "."):
                graph[module].add(name)  # importing a parent package is not a cycle edge of interest
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.slow
def test_no_bare_verifiers_or_ground_truth_imports() -> None:
    """`verifiers` is also PyPI's package (and `ground_truth` a generic name): our code, tests and benchmarks must
    import them only as `agenticvbench.verifiers` / `agenticvbench.ground_truth`, or a user's install breaks."""
    bad = []
    for path in _py_files(PACKAGE, REPO / "tests", REPO / "benchmarks"):
        module = _module_name(path) if path.is_relative_to(PACKAGE) else path.stem
        for name, line in _imports(path, module):
            if name.split(".")[0] in BARE:
                bad.append(f"{path.relative_to(REPO)}:{line}: imports {name}")
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_detector_sees_the_package() -> None:
    """Guard for the cycle test: the graph covers the verifiers and resolves known edges."""
    graph = _graph()
    assert "agenticvbench.verifiers.repair.edit" in graph and "agenticvbench.ground_truth" in graph
    assert "agenticvbench.errors" in graph["agenticvbench.dataset.loader"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.slow
def test_no_import_cycles() -> None:
    """Modules of the package form no import cycle, counting lazy and TYPE_CHECKING imports too: a cycle makes
    import order matter and hides a missing boundary (e.g. a type that belongs in a lower module)."""
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


#: The package's folders by layer, lowest first; a module may import only from its own layer or lower ones. The
#: modules at the package root (errors, fsutil, sanitize, memo, tables, ...) are the shared base; the package root
#: itself (`agenticvbench/__init__.py`, the public API) re-exports from any layer. docs/architecture.md draws it.
#: An entry is a folder or, for the few modules that sit below their folder, a dotted module (`harbor.files`):
#: the longest entry naming a module decides its layer.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("base", frozenset()),
    ("dataset", frozenset({"dataset"})),
    ("runs", frozenset({"runs"})),
    ("log readers", frozenset({"harbor.files", "harbor.trajectory", "cost.tokens", "cost.usage_stores"})),
    ("results", frozenset({"results"})),
    ("plug-in", frozenset({"media", "ground_truth", "verifiers", "judge"})),
    ("integrity", frozenset({"integrity"})),
    ("trajectory", frozenset({"trajectory"})),
    ("analysis", frozenset({"analysis"})),
    ("scoring", frozenset({"scoring"})),
    ("cost", frozenset({"cost"})),
    ("tools", frozenset({"harbor", "interop", "demo", "baselines", "grade"})),
    ("report", frozenset({"report"})),
    ("view", frozenset({"view"})),
    ("hub", frozenset({"hub"})),
    ("cli", frozenset({"cli"})),
)


def _layer(module: str) -> int:
    """Index into LAYERS of a dotted module name under `agenticvbench` (core when no layer names it): the layer
    of its longest prefix that an entry names (`harbor.files.x` -> `harbor.files`, `harbor.importer` -> `harbor`)."""
    parts = module.split(".")[1:]
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        found = next((i for i, (_, entries) in enumerate(LAYERS) if prefix in entries), None)
        if found is not None:
            return found
    return 0


def _upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every `module -> dependency` edge that points to a higher layer (the package root excepted)."""
    return [
        f"{m} ({LAYERS[_layer(m)][0]}) -> {d} ({LAYERS[_layer(d)][0]})"
        for m, deps in sorted(graph.items())
        if m != "agenticvbench"
        for d in sorted(deps)
        if _layer(d) > _layer(m)
    ]


def test_layer_detector_finds_an_upward_import() -> None:
    """Guard for the layer test: a crafted core -> cli edge is reported, a cli -> core edge is not."""
    graph = {
        "agenticvbench.fsutil": {"agenticvbench.cli.main"},
        "agenticvbench.cli.main": {"agenticvbench.fsutil"},
    }
    assert _upward_imports(graph) == ["agenticvbench.fsutil (base) -> agenticvbench.cli.main (cli)"]
    assert _layer("agenticvbench.verifiers.repair.edit") == 5 and _layer("agenticvbench.results.model") == 4


def test_layers_put_the_trajectory_audit_below_scoring() -> None:
    """The engine audits trajectories, so `trajectory/` sits below `scoring/` and above nothing it must not see:
    the log readers it shares with Harbor and cost are placed by module, the rest of their folders stay tools."""
    audit, engine = _layer("agenticvbench.trajectory.audit"), _layer("agenticvbench.scoring.engine")
    assert _layer("agenticvbench.harbor.files") < audit < _layer("agenticvbench.analysis.aggregate") < engine
    assert _layer("agenticvbench.harbor.importer") > engine and _layer("agenticvbench.cost.usage") > engine
    assert _layer("agenticvbench.cost.usage_stores") == _layer("agenticvbench.harbor.trajectory") < audit
    graph = {
        "agenticvbench.trajectory.audit": {"agenticvbench.analysis.aggregate", "agenticvbench.harbor.files"}
    }
    assert _upward_imports(graph) == [
        "agenticvbench.trajectory.audit (trajectory) -> agenticvbench.analysis.aggregate (analysis)"
    ]


@pytest.mark.slow
def test_imports_follow_the_layers() -> None:
    """core -> plug-ins -> engine -> outputs -> cli: a module imports only its own layer or lower ones (lazy and
    TYPE_CHECKING imports count). An upward import means a rule lives in the wrong layer (e.g. the engine's
    summary asking the report for the headline rule); move the rule down instead of importing up."""
    bad = _upward_imports(_graph())
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)
