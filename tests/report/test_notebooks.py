"""The notebooks: generated from make_notebooks.py, stored without outputs; the two demo ones run on the demo
(hub_leaderboard.ipynb runs against the loopback Hub in tests/hub/test_hub_notebook.py).

They are executed with nbclient against a pre-scored private copy of the demo (the `scored_demo` fixture), through
their default demo path (RUN_DIRS = None), so the build and scoring calls in the notebooks are exercised while
reusing the session's results; each ends with assert cells on its key numbers.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow  # every test here scores the demo or builds an environment

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _generator():
    spec = importlib.util.spec_from_file_location("make_notebooks", NOTEBOOKS / "make_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_notebooks_are_generated_and_stripped() -> None:
    """The committed .ipynb files are exactly what make_notebooks.py writes, with no outputs."""
    assert _generator().main(["--check"]) == 0
    for name in ("leaderboard.ipynb", "family_report.ipynb", "hub_leaderboard.ipynb"):
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert all(not c.outputs and c.execution_count is None for c in code)
        assert sum("parameters" in c.metadata.get("tags", []) for c in code) == 1
        assert "assert " in code[-1].source


def _prepared(name: str, params: str) -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    cell.source += "\n# injected by the test\n" + params
    return nb


def _text(nb: nbformat.NotebookNode) -> str:
    out = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            out.append(o.get("text", "") or o.get("data", {}).get("text/markdown", ""))
    return "\n".join(out)


def _images(nb: nbformat.NotebookNode) -> int:
    return sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


@pytest.fixture(scope="module")
def executed(scored_demo) -> dict[str, nbformat.NotebookNode]:
    """Both notebooks executed concurrently (two kernels, which inherit the session's isolated AVB_CACHE)."""
    demo_params = f"DEMO_DIR = {str(scored_demo.root)!r}\n"
    jobs = {
        "leaderboard.ipynb": demo_params
        + f"DEMO_FAMILIES = {list(scored_demo.families)!r}\nRESAMPLES = 500\n",
        "family_report.ipynb": demo_params + 'FAMILY = "sequencing"\nN_WORST = 2\n',
    }
    books = {name: _prepared(name, params) for name, params in jobs.items()}

    async def run_all() -> None:
        clients = [
            NotebookClient(
                nb,
                timeout=240,
                kernel_name="python3",
                resources={"metadata": {"path": str(scored_demo.root)}},
            )
            for nb in books.values()
        ]
        await asyncio.gather(*(c.async_execute() for c in clients))

    asyncio.run(run_all())
    return books


def test_leaderboard_notebook_runs_on_demo(executed, scored_demo) -> None:
    """Table, two plots, the published comparison (0.3810 reproduced), the cost section and the paired
    comparison, and the passing assert cell."""
    nb = executed["leaderboard.ipynb"]
    text = _text(nb)
    assert "all checks passed" in text
    assert "| 1 | demo | perfect | 1 | 4/4 | 1.0000 [1.00, 1.00] | 1.0000 [1.00, 1.00] |" in text
    assert "-> 0.3810 (published 0.3810)" in text
    assert "reused)" in text and "(only sequencing, assembly)" in text
    assert "no run has agent usage" in text  # the demo runs were not imported from Harbor: no cost, never $0
    assert "| macro |" in text and "A = demo/perfect" in text  # the paired comparison of the two best rows
    assert _images(nb) == 2


def test_family_report_notebook_runs_on_demo(executed) -> None:
    """Per-task table, worst tasks explained with their reasons, detail plots, passing assert cell."""
    nb = executed["family_report.ipynb"]
    text = _text(nb)
    assert "all checks passed" in text
    assert text.count("### Task ") == 2 and "malformed: solution.json" in text
    assert "misplaced:" in text and "nd_score" in text
    assert _images(nb) >= 3  # the family grid + sequencing order plots of the worst tasks
