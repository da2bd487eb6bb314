"""What the viewer shows and publishes is what the scorer checked (`view/checked.py`, `runs.pinned.reopened`).

Each test is a hostile run: a verifier-only source planted as a recap output, a file swapped for a symlink to a
secret after its page was rendered, a file changed after it was scored, a video scoring refused. None of them may
reach a page, a thumbnail, the server or a bundle."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agenticvbench.view import Thumbnailer, ViewApp, build_model, write_bundle
from agenticvbench.view.pages import Site, task_context

pytestmark = pytest.mark.slow  # each test scores a task of the demo


def _bundle_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _source(demo) -> Path:
    return demo.mirror / "repair" / "sources" / "demo1_source.mp4"


@pytest.mark.parametrize("media", ["full", "thumbs"])
def test_a_planted_verifier_only_source_is_never_published(demo, hostile_run, score_run, tmp_path, media):
    """`cp demo1_source.mp4 RUN/1/final.mp4`: scoring flags it; the bundle used to copy it byte for byte
    (`--media full`) or publish 8 frames of it (`--media thumbs`). Now the page says it is withheld, and the bundle
    holds neither its bytes nor a thumbnail of it."""
    run = hostile_run("perfect")
    final = next(run.folder(1).rglob("final.mp4"))
    shutil.copyfile(_source(demo), final)
    (result,) = score_run(run.root, [1]).results
    assert any("verifier_reference" in f for f in result.integrity)
    model = build_model([run.root], dataset=demo.mirror, local=False, resamples=0)
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    ctx = task_context(model, Site(public=True, media=media), thumbs, 0, 1)
    assert not ctx["players"] and any("withheld" in n for n in ctx["output_notes"])
    write_bundle(model, tmp_path / "b", thumbs, media=media)
    source = _source(demo).read_bytes()
    assert source[4096:8192] not in _bundle_bytes(tmp_path / "b")
    assert thumbs.made == 0 or not any((tmp_path / "b" / "thumbs").glob("*"))


def test_a_file_swapped_after_its_page_was_rendered_is_not_copied(demo, hostile_run, score_run, tmp_path):
    """The bundle used to copy offered files by name after every page was written: a process left running in the
    agent's sandbox could swap `final.mp4` for a symlink to the operator's result key in that window. The copy
    now reopens the checked file by its rules and refuses one whose identity changed; the secret never lands."""
    run = hostile_run("perfect")
    score_run(run.root, [1])
    model = build_model([run.root], dataset=demo.mirror, local=False, resamples=0)
    site = Site(public=True, media="full")
    ctx = task_context(model, site, Thumbnailer(tmp_path / "cache", progress=False), 0, 1)
    assert ctx["players"] and ctx["players"][0]["url"]
    secret = tmp_path / "result-key"
    secret.write_bytes(b"SECRET-KEY-" * 1000)
    final = model.files[ctx["players"][0]["index"]].path
    final.unlink()
    os.symlink(secret, final)
    with pytest.raises(
        OSError, match="changed since it was checked|outside the task folder|not a regular|cannot be opened"
    ):
        with model.opened(ctx["players"][0]["index"]):
            pass
    write_bundle(model, tmp_path / "b", Thumbnailer(tmp_path / "cache", progress=False), media="full")
    assert b"SECRET-KEY-" not in _bundle_bytes(tmp_path / "b")


def test_a_file_changed_after_scoring_is_not_offered(demo, hostile_run, score_run, tmp_path):
    """The viewer showed a file as it is now, though the result was computed on other bytes; now a file whose
    hash is not the one scoring recorded is not offered, and the page says to rescore."""
    run = hostile_run("perfect")
    score_run(run.root, [65])
    report = next(run.folder(65).rglob("report.md"))
    report.write_text(report.read_text() + "\nchanged after scoring\n")
    model = build_model([run.root], dataset=demo.mirror, local=False, resamples=0)
    ctx = task_context(model, Site(public=False), Thumbnailer(tmp_path / "cache", progress=False), 0, 65)
    assert not any(t["name"] == "report.md" for t in ctx["texts"])
    assert any("report.md" in n and "changed since it was scored" in n for n in ctx["output_notes"])


def test_a_video_scoring_refused_is_never_decoded(demo, hostile_run, score_run, tmp_path):
    """A recap `final.mp4` scoring calls `malformed` (here: not a video at all; a 1.5 kB file declaring 40 M
    samples is the same case) drove the viewer's decoder; now it is not offered and no thumbnail is made."""
    run = hostile_run("perfect")
    final = next(run.folder(1).rglob("final.mp4"))
    final.write_bytes(b"\x00\x00\x00\x18ftypmp42" + os.urandom(1500))
    (result,) = score_run(run.root, [1]).results
    assert result.status == "malformed"
    model = build_model([run.root], dataset=demo.mirror, resamples=0)
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    ctx = task_context(model, Site(public=False), thumbs, 0, 1)
    assert not ctx["players"] and thumbs.made == 0
    assert any("not decoded" in n for n in ctx["output_notes"])
    app = ViewApp(model=model, thumbs=thumbs)
    assert all(f.name != "final.mp4" for f in app.model.files)
