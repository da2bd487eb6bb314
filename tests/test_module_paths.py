"""Every module path the package's text names still exists.

Modules move (a re-layout turned `stats/` into `analysis/` and root modules into folders), and a docstring or a
page of docs/ that names the old place sends a reader to nothing. Three kinds of names are checked:

- a dotted name starting with `agenticvbench.`, anywhere in `agenticvbench/**/*.py`, `docs/**/*.md`, README.md
  and CONTRIBUTING.md: its longest prefix that `importlib.util.find_spec` finds is the module, and the rest must
  be attributes of it (read from the module's source when they are defined there, so most checks import only
  packages; otherwise the module is imported and `getattr` decides);
- a path `agenticvbench/...` in those Markdown files: it must exist in the repository;
- a package-relative dotted name of three or more parts in backticks whose first part is a subpackage
  (`analysis.aggregate.RunRef`): it is checked as `agenticvbench.` + the name. Two-part names are left out:
  `report.md` or `harbor.trimmed` are files and JSON keys far more often than modules.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "agenticvbench"
SUBPACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())

DOTTED = re.compile(r"(?<![\w./-])agenticvbench(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w./-])agenticvbench(?:/[\w.@-]+)+")
RELATIVE = re.compile(rf"`((?:{'|'.join(SUBPACKAGES)})(?:\.[A-Za-z_]\w*){{2,}})(?:\(\))?`")

#: Names that look like module paths and are something else, with what they are.
NOT_MODULES = {
    "agenticvbench.sequencing": "an OpenVibe judge type (`interop.openvibe.JUDGE_PREFIX` + family)",
    "agenticvbench.harbor.comparability.problems": "a key path of an imported run's run.json",
    "agenticvbench.harbor.models.trial.error_policy": "a module of Harbor itself, not of this package",
}
NOT_PATHS = {
    "agenticvbench/agenticvbench": "the Harbor dataset name (`harbor.manifest.DATASET_NAME`)",
    "agenticvbench/sequencing-037": "an exported task's Harbor name (`harbor.export.task_toml`), an Inspect sample id",
}


def _sources() -> list[Path]:
    return [
        *sorted(PACKAGE.rglob("*.py")),
        *sorted((REPO / "docs").rglob("*.md")),
        REPO / "README.md",
        REPO / "CONTRIBUTING.md",
    ]


def _module_prefix(name: str) -> tuple[str, list[str]] | None:
    """The longest importable module that `name` starts with, and the attribute names after it."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            spec = importlib.util.find_spec(".".join(parts[:i]))
        except (ImportError, ValueError):  # a prefix that is a module, not a package, has no submodules
            spec = None
        if spec is not None:
            return ".".join(parts[:i]), parts[i:]
    return None


def _defined(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """Names a module or class body binds (also under `if`/`try`/`with`), each with its statement."""
    names: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names[leaf.id] = node
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [s for h in getattr(node, "handlers", []) for s in h.body]
            names.update(_defined(inner))
    return names


@cache
def resolves(name: str) -> bool:
    """True when `name` is an importable module or an attribute path on one."""
    found = _module_prefix(name)
    if found is None:
        return False
    module, rest = found
    origin = importlib.util.find_spec(module).origin  # type: ignore[union-attr]
    if not rest:
        return True
    if origin and origin.endswith(".py"):
        body = ast.parse(Path(origin).read_text(encoding="utf-8")).body
        for i, part in enumerate(rest):
            node = _defined(body).get(part)
            if node is None:
                break  # not bound in the source (a lazy export, say): ask the imported module
            if i == len(rest) - 1:
                return True
            if not isinstance(node, ast.ClassDef):
                break
            body = node.body
    obj: object = importlib.import_module(module)
    for part in rest:
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def stale_names() -> tuple[int, list[str]]:
    """(how many names were checked, `file:line: name` for each one that does not resolve)."""
    checked, stale = 0, []
    for path in _sources():
        rel = path.relative_to(REPO)
        markdown = path.suffix == ".md"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            names = [m.group(0) for m in DOTTED.finditer(line)]
            names += ["agenticvbench." + m.group(1) for m in RELATIVE.finditer(line)]
            for name in names:
                checked += 1
                if name not in NOT_MODULES and not resolves(name):
                    stale.append(f"{rel}:{n}: {name}")
            for m in PATH.finditer(line) if markdown else ():
                checked += 1
                target = m.group(0).rstrip(".")
                if target not in NOT_PATHS and not (REPO / target).exists():
                    stale.append(f"{rel}:{n}: {target} (no such file)")
    return checked, stale


def test_the_resolver_tells_moved_modules_from_present_ones() -> None:
    """The check itself must fail on an old path and pass on the new one, or the scan below proves nothing."""
    assert resolves("agenticvbench.analysis.paired")
    assert resolves("agenticvbench.runs.jobdir")
    assert resolves("agenticvbench.results.model.Result.status")  # a dataclass field: found in the source
    assert resolves("agenticvbench.verify_run")  # a lazy export: found by importing the package
    assert not resolves("agenticvbench.stats.paired")
    assert not resolves("agenticvbench.harbor.jobfiles")
    assert not resolves("agenticvbench.analysis.paired.no_such_function")
    assert not resolves("agenticvbench.results.model.Result.no_such_field")


def test_every_module_path_in_docstrings_and_docs_resolves() -> None:
    """A module moved in a re-layout leaves its old dotted path in docstrings and docs; each one must resolve."""
    checked, stale = stale_names()
    assert checked > 150, f"only {checked} names found: the scan is broken"
    assert not stale, f"{len(stale)} stale module path(s):\n" + "\n".join(stale)
