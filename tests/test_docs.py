"""The docs stand on their own: every defect id the code can print is explained in docs/upstream-defects.md, and
no file of the project points at a ticket or a document outside the repository."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFECT_ID = re.compile(r"\bD-[SRC]\d+\b")
TEXT_SUFFIXES = {".py", ".md", ".json", ".toml", ".yaml", ".yml", ".ipynb", ".txt", ".html", ".cfg"}
# Assembled from parts so this file does not match itself.
OUTSIDE = re.compile("|".join([r"\bissue " + r"\d+", "shared" + "/spec", r"\.\./" + "shared", r"\bspec " + "§",
                               r"scoring" + r"\.md"]), re.IGNORECASE)


def _text_files() -> list[Path]:
    out = []
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if not d.startswith(".") or d == ".ci"]
        dirs[:] = [d for d in dirs if d not in {"__pycache__", "build", "dist", "data"} and not d.endswith(".egg-info")]
        out += [Path(folder) / f for f in files if Path(f).suffix in TEXT_SUFFIXES or f == "run"]
    return sorted(out)


def test_every_printed_defect_id_is_documented() -> None:
    """A result's `warnings` start with a defect id; a reader must find that id in docs/upstream-defects.md."""
    used: set[str] = set()
    for root in (REPO / "agenticvbench", REPO / "verifiers"):
        for path in root.rglob("*.py"):
            used |= set(DEFECT_ID.findall(path.read_text(encoding="utf-8")))
    documented = set(re.findall(r"^\| (D-[SRC]\d+) \|", (REPO / "docs" / "upstream-defects.md").read_text(
        encoding="utf-8"), re.M))
    assert used, "no defect id found in the code: the scan is broken"
    assert not used - documented, f"undocumented defect ids: {sorted(used - documented)}"


def test_no_file_points_outside_the_repository() -> None:
    """Docs, code, data and tests cite public sources only, never a ticket number or an internal spec folder."""
    hits = []
    for path in _text_files():
        if path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()[:120]}")
    assert len(_text_files()) > 50
    assert not hits, "\n".join(hits)
