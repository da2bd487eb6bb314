"""One disclosure policy (`view/disclosure.py`): a bundle built from the scored demo runs holds, by default, no
answer, no solved task's submission, no rubric, nothing derived from verifier-only files, no repair output and no
path of this machine; opting in (`--show-rubric`, `--show-answers`) shows exactly the class asked for. The scan
reads every byte of the bundle, so a class that leaks through any page, thumbnail or file fails here."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from agenticvbench.view import Thumbnailer, build_model, write_bundle
from agenticvbench.view.disclosure import published, scrub, spellings


def _text(folder: Path) -> str:
    return "\n".join(p.read_text("utf-8", "replace") for p in sorted(folder.rglob("*.html")))


def _result(run: Path, task: int) -> dict:
    return json.loads((run / "avb-results" / f"{task}.json").read_text())


@pytest.fixture(scope="module")
def bundles(demo, view_demo, tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """Bundles of the scored partial and perfect runs: default policy, and with both opt-ins."""
    root = tmp_path_factory.mktemp("disclosure")
    model = build_model(
        [view_demo["partial"], view_demo["perfect"]], dataset=demo.mirror, local=False, resamples=0
    )
    out = {}
    for name, policy in (("default", published()), ("opt-in", published(rubric=True, answers=True))):
        write_bundle(
            model, root / name, Thumbnailer(root / "cache", progress=False), media="full", policy=policy
        )
        out[name] = (root / name, _text(root / name))
    return out


@pytest.mark.slow  # builds bundles of the scored demo runs
def test_default_bundle_withholds_every_class(demo, view_demo, bundles) -> None:
    """Each class, checked on the bytes of the default bundle."""
    folder, text = bundles["default"]
    perfect = view_demo["perfect"]
    # answers: the gold window, the correct clips of a slot
    assert "gold window" not in text
    # solved tasks' submissions: the perfect run's exact sequencing order is the answer
    seq = _result(perfect, 37)
    assert "the submitted order is withheld" in text and "the chosen clips are withheld" in text
    assert json.dumps(seq["detail"]["pred"]) not in text
    # rubric: item ids and weights of the recap rubric
    items = _result(perfect, 1)["detail"]["items"]
    assert not [i["item_id"] for i in items if f">{i['item_id']}<" in text]
    # derived from verifier-only files: the source's hash, series split by the gold window
    source = demo.mirror / "repair" / "sources" / "demo1_source.mp4"
    assert hashlib.sha256(source.read_bytes()).hexdigest() not in text
    assert "inside the window" not in text
    # repair outputs and the source itself are not among the files
    fixed = next((perfect / "65").rglob("fixed.mp4")).read_bytes()
    blobs = [p.read_bytes() for p in (folder / "files").glob("*")] if (folder / "files").exists() else []
    assert fixed not in blobs and source.read_bytes() not in blobs
    # paths of this machine
    for p in (str(view_demo["perfect"]), str(view_demo["partial"]), str(demo.mirror)):
        assert p not in text


@pytest.mark.slow
def test_opting_in_shows_the_rubric_and_the_answers(view_demo, bundles) -> None:
    """With both opt-ins the same scan finds the rubric's item ids and the gold window (so the scan above can
    fail), and still no path of this machine and nothing derived from the verifier-only source."""
    _, text = bundles["opt-in"]
    items = _result(view_demo["perfect"], 1)["detail"]["items"]
    assert [i["item_id"] for i in items if f">{i['item_id']}<" in text]
    assert "gold window" in text and "inside the window" not in text
    assert str(view_demo["perfect"]) not in text


def test_scrub_replaces_paths_in_every_spelling() -> None:
    """The one pass over a page: a run's path in plain text, in an attribute and HTML-escaped becomes its
    placeholder; a longer path that only starts with it is not touched."""
    page = "<td title='/w/run a&b/65'>/w/run a&amp;b/65/fixed.mp4</td> /w/run a&b2/x"
    out = scrub(page, [("/w/run a&b", "<run 1>")])
    assert "/w/run a&b/" not in out and "/w/run a&amp;b/" not in out and "/w/run a&b2/x" in out


def test_scrub_replaces_a_path_cut_short() -> None:
    """A step's summary is cut at 100 characters, which can fall inside the dataset's path: the cut path no longer
    matched and "/tmp/x/data/AgenticVBench_10..." reached a bundle. A cut inside a root, past its first folder,
    becomes the root's placeholder; a cut that only starts like it, or names nothing past "/tmp/", stays."""
    roots = [("/tmp/x/data/AgenticVBench_100", "<dataset>"), ("/w/run a&b", "<run 1>")]
    page = (
        "read_parquet(&#39;/tmp/x/data/AgenticVBench_10...</summary> and /w/run a&amp;... <b>/tmp/x/d...</b>"
    )
    out = scrub(page, roots)
    assert out == "read_parquet(&#39;<dataset>...</summary> and <run 1>... <b><dataset>...</b>"
    kept = "ls /tmp/... and/or/tmp/x/da... /tmp/y..."
    assert scrub(kept, roots) == kept


def test_scrub_matches_a_path_spelled_with_redundant_separators() -> None:
    """A log printed `/w/./run/38` and `/w/run//38` (what `pwd` and a joined path print), and the bundle published
    them, since only the exact spelling was matched: a separator spelled `//` or `/./` matches too, and the
    placeholder holds no markup character, so a browser shows it."""
    roots = [("/w/run", "[run 1]")]
    page = "<pre>/w/./run/38\n/w/run//38\n/w//./run/.//38\n/w/runs/38</pre>"
    assert scrub(page, roots) == "<pre>[run 1]/38\n[run 1]//38\n[run 1]/.//38\n/w/runs/38</pre>"
    hostile = "/w" + "/." * 300_000 + "/" * 300_000
    started = time.perf_counter()
    assert scrub(hostile, roots) == hostile
    assert time.perf_counter() - started < 2


def test_spellings_of_a_folder_given_through_a_symlink(tmp_path: Path) -> None:
    """`--dataset` given through a symlink was published as typed: the folder's spellings are its own, its
    resolved form, and its spelling through each folder the viewer was given (the folder itself, a parent of
    it, or a folder inside it)."""
    real = tmp_path / "mirror"
    (real / "avb-results").mkdir(parents=True)
    link = tmp_path / "dslink"
    link.symlink_to(real)
    assert str(link) in spellings(str(real), [str(link)])
    parent = tmp_path / "parent-link"
    parent.symlink_to(tmp_path)
    assert str(parent / "mirror") in spellings(str(real), [str(parent)])
    assert str(link) in spellings(str(real), [str(link / "avb-results")])
    assert os.path.realpath(real) in spellings(str(link))
