"""`avb view --bundle`: a static site that holds no verifier-only byte and no answer, whatever `--media` says.

The scan is built from the result files and the dataset themselves: every verifier-only reference of the tasks
(byte windows of it), and for each task where the agent got it wrong, the correct order, the gold defect window
and the expected clip per slot, in the forms a page could print them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.dataset.loader import load_tasks
from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.results.model import iter_results
from agenticvbench.view import Thumbnailer, build_model, write_bundle

OUTPUT_NAMES = {name for names in OUTPUT_FILES.values() for name in names}


def answers(run: Path) -> list[str]:
    """Strings that would reveal an answer the run did not itself submit."""
    out: list[str] = []
    for r in iter_results(run):
        d = r.detail
        if r.family == "sequencing" and d.get("correct") and d.get("pred") != d.get("correct"):
            c = [str(x) for x in d["correct"]]
            out += [json.dumps(c), ", ".join(c), " ".join(c), "correct order"]
        if r.family == "repair":
            loc = d.get("localization") or {}
            t, p = loc.get("truth_window_s"), loc.get("predicted_window_s")
            if t and t != p:
                a, b = t
                out += [
                    f"{a:g}-{b:g}",
                    f"[{a:.3f}, {b:.3f}]",
                    f"[{a:g}, {b:g}]",
                    f"{a:g}, {b:g}",
                    "gold window",
                ]
        if r.family == "assembly" and d.get("correct"):
            for pick, want in zip(d.get("picks") or [], d["correct"], strict=False):
                if pick != want:
                    out += [f"want {want}", f"expected {want}"]
            out.append(json.dumps(d["correct"]))
    return out


def reference_windows(mirror: Path) -> list[tuple[str, bytes]]:
    """Byte windows (256 bytes each, 16 per file) of every verifier-only reference of the dataset, leaving out
    windows that an input of any task also holds (a damaged repair input shares untouched packets with its
    source, and agents are given it)."""
    out = []
    tasks = load_tasks(dataset=mirror)
    given = b"".join(
        p.read_bytes() for t in tasks if t.family == "repair" for p in t.materials() if p.is_file()
    )
    for task in tasks:
        for ref in task.verifier_references():
            data = ref.read_bytes()
            step = max(1, (len(data) - 256) // 16)
            out += [
                (ref.name, w)
                for k in range(0, len(data) - 256, step)
                if (w := data[k : k + 256]) not in given
            ]
    return out


def scan(bundle: Path, forbidden_text: list[str], windows: list[tuple[str, bytes]]) -> list[str]:
    """Every file of the bundle that holds a forbidden string or a byte window of a reference."""
    found = []
    for f in sorted(p for p in bundle.rglob("*") if p.is_file()):
        data = f.read_bytes()
        found += [f"{f.name}: text {s!r}" for s in forbidden_text if s.encode() in data]
        found += [f"{f.name}: bytes of {name}" for name, w in windows if w in data]
    return found


@pytest.mark.parametrize("media", ["full", "thumbs"])
def test_bundle_holds_no_answer_and_no_verifier_byte(demo, runs, tmp_path: Path, media: str) -> None:
    """The partial run (wrong orders, a wrong defect window, wrong slots) bundled with its outputs: the scan
    finds nothing; the same scan over the local server's pages does find the answers (so it can see them)."""
    forbidden = answers(runs[0])
    assert len(forbidden) > 10  # the run does get things wrong: the scan has something to look for
    windows = reference_windows(demo.mirror)
    assert windows
    model = build_model([runs[0]], dataset=demo.mirror, local=False, resamples=100)
    out = tmp_path / "bundle"
    counts = write_bundle(model, out, Thumbnailer(tmp_path / "cache", progress=False), media=media)
    assert counts["pages"] == 2 + 9 and counts["thumbs"] > 20  # the overview, the defect ids, 9 task pages
    assert (counts["files"] > 0) == (media == "full")
    outputs = {f.name for f in (out / "files").glob("*")} if media == "full" else set()
    offered = {f"{i}{model.files[i].ext}" for i, ref in enumerate(model.files) if ref.name in OUTPUT_NAMES}
    assert outputs <= offered  # only outputs of the run: no task input (the dataset's films and clips)
    assert scan(out, forbidden, windows) == []
    assert not list(out.rglob("*source*"))

    from agenticvbench.view.pages import Site, task_page

    local = build_model([runs[0]], dataset=demo.mirror, local=True, resamples=100)
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    pages = tmp_path / "local"
    pages.mkdir()
    for fam in local.families:
        for tid in local.task_ids(fam):
            (pages / f"{tid}.html").write_text(task_page(local, Site(), thumbs, 0, tid))
    assert len(scan(pages, forbidden, [])) >= len(forbidden) // 2  # the local view shows them


def test_a_perfect_repair_is_withheld_from_a_full_bundle(demo, runs, tmp_path: Path) -> None:
    """A perfect repair output is the verifier-only source itself (here all of its sampled bytes): `--media full`
    must not publish it, nor any repair output (the page says it is withheld); before, the bundle copied the
    source's bytes under files/ with the run's fixed.mp4."""
    windows = reference_windows(demo.mirror)
    model = build_model([runs[1]], dataset=demo.mirror, local=False, resamples=100)
    out = tmp_path / "bundle"
    write_bundle(model, out, Thumbnailer(tmp_path / "cache", progress=False), media="full")
    assert scan(out, [], windows) == []
    assert "withheld from this bundle" in (out / "task-0-65.html").read_text()


def test_cli_bundle_media_none_has_pages_only(demo, runs, tmp_path: Path, capsys) -> None:
    """`avb view RUN --bundle DIR --media none` writes pages and static files only, and says what it wrote; its
    last progress line counts every page written (not the last multiple of 25)."""
    out = tmp_path / "b"
    assert (
        main(["view", str(runs[0]), "--dataset", str(demo.mirror), "--bundle", str(out), "--media", "none"])
        == 0
    )
    captured = capsys.readouterr()
    assert "11 page(s), 0 file(s), 0 thumbnail(s)" in captured.out
    assert captured.err.strip().splitlines()[-1] == "avb view: 9/9 page(s) written"
    assert {p.parent.name for p in out.rglob("*") if p.is_file()} == {"b", "static"}
