"""The public `__init__` modules share one lazy-export mechanism (`agenticvbench.lazy`): each lists a name once
for runtime (`_LAZY`), once for editors and mypy (`if TYPE_CHECKING:`) and once in `__all__`. These tests keep
the three lists equal and every name resolvable, and check that the laziness is real (a light import stays light)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = [
    "agenticvbench",
    "agenticvbench.report",
    "agenticvbench.judge",
    "agenticvbench.verifiers.repair",
    "agenticvbench.verifiers.recap",
]


def _type_checking_names(package: str) -> set[str]:
    """Names imported under `if TYPE_CHECKING:` in the package's `__init__.py`, read with `ast`."""
    path = REPO / Path(*package.split(".")) / "__init__.py"
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom):
                    names |= {a.asname or a.name for a in sub.names}
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_lazy_names_are_typed_and_public(package: str) -> None:
    """A lazily exported name that mypy cannot see (or that `__all__` omits) is the drift this mechanism forbids."""
    module = importlib.import_module(package)
    lazy = set(module._LAZY)
    assert lazy, f"{package}: no lazy names (the test reads the wrong module)"
    assert lazy == _type_checking_names(package)
    assert lazy <= set(module.__all__)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves(package: str) -> None:
    """`from package import *` must not fail on a name whose module moved; `dir()` lists the lazy names."""
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    assert set(module._LAZY) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute"):
        module.no_such_name  # noqa: B018 - the lookup is the assertion


def test_lazy_name_is_the_real_object() -> None:
    """The re-export is the engine's function itself (not a wrapper with a vaguer signature)."""
    import agenticvbench
    from agenticvbench.scoring.engine import verify_run

    assert agenticvbench.verify_run is verify_run


def test_light_imports_stay_light() -> None:
    """Importing the package or `report` must not import the engine, pandas, matplotlib or the `openai` SDK."""
    code = (
        "import sys, agenticvbench, agenticvbench.report, agenticvbench.judge; "
        "print(sorted(m for m in ('agenticvbench.scoring.engine', 'pandas', 'matplotlib', 'openai') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "[]", out.stdout
