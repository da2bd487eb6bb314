"""What the evidence builders mark and draw: the repair timeline (inside values solid and over the window they
measure, outside dotted; one series per signal where the window may not be revealed), assembly picks that name no
clip, sequencing's marks in a bundle, and no empty strips for a failed submission."""

from __future__ import annotations

from pathlib import Path

from agenticvbench.results.model import Result
from agenticvbench.view import evidence
from agenticvbench.view.disclosure import LOCAL, published
from agenticvbench.view.model import FileRef, ViewModel

CSS = (Path(evidence.__file__).parent / "static" / "view.css").read_text()


class NoThumbs:
    """A thumbnailer that makes no frame (these tests look at marks and geometry only)."""

    def frames(self, path, times):  # noqa: ANN001, ANN201
        return [None] * len(times)


def model(clips: tuple[str, ...] = ()) -> ViewModel:
    """A model whose task inputs are `clips` (for the clip-id lookups)."""
    m = ViewModel(runs=[], report=None, tasks={}, local=False)  # type: ignore[arg-type]
    m.files = [FileRef(name=c, path=Path("/nonexistent") / c, size=1, ctype="video/mp4") for c in clips]
    m.inputs = lambda task_id: [(c, i) for i, c in enumerate(clips)]  # type: ignore[method-assign]
    return m


CHUNKS = [
    {
        "start_s": 0,
        "end_s": 10,
        "video_ssim_out": 0.9,
        "video_ssim_in": 0.4,
        "audio_xcorr_out": 0.8,
        "audio_xcorr_in": 0.3,
    },
    {"start_s": 10, "end_s": 14, "video_ssim_out": 0.95, "audio_xcorr_out": 0.85},
]
REPAIR = Result(
    task_id=65,
    family="repair",
    status="scored",
    detail={
        "edit": {"chunks": CHUNKS},
        "localization": {"predicted_window_s": [4.5, 6], "truth_window_s": [4, 5.5]},
    },
)


def test_inside_is_drawn_over_the_window_and_outside_around_it() -> None:
    tl = evidence.repair(REPAIR, policy=LOCAL).timeline
    x = lambda t: round(tl["x0"] + (tl["xend"] - tl["x0"]) * t / tl["span"], 1)  # noqa: E731
    inside = [(ln["x1"], ln["x2"]) for ln in tl["lines"] if ln["css"] == "v-in"]
    assert inside == [(x(4), x(5.5))]
    outside = [(ln["x1"], ln["x2"]) for ln in tl["lines"] if ln["css"] == "v-out"]
    assert outside == [(x(0), x(4)), (x(5.5), x(10)), (x(10), x(14))]
    assert "solid = inside the defect window (weighted 2.5x), dotted = outside (1x)" in tl["note"]


def test_a_bundle_timeline_spans_whole_chunks_and_never_splits() -> None:
    tl = evidence.repair(REPAIR, policy=published()).timeline
    assert {ln["css"] for ln in tl["lines"]} == {"v-all", "a-all"}
    x = lambda t: round(tl["x0"] + (tl["xend"] - tl["x0"]) * t / tl["span"], 1)  # noqa: E731
    assert sorted((ln["x1"], ln["x2"]) for ln in tl["lines"] if ln["css"] == "v-all") == [
        (x(0), x(10)),
        (x(10), x(14)),
    ]
    assert "inside" not in tl["note"] and tl["gold"] is None


def test_legend_swatches_differ_and_match_the_lines() -> None:
    """Each legend entry draws a line of its series' own class; inside is solid and outside dashed in the style
    sheet, so no two swatches of one colour look alike."""
    tl = evidence.repair(REPAIR, policy=LOCAL).timeline
    assert [c for c, _ in tl["legend"]] == ["v-in", "v-out", "a-in", "a-out"]
    parts = (Path(evidence.__file__).parent / "templates" / "parts.html").read_text()
    legend = parts[parts.index('<p class="legend">') :]
    assert '<svg class="swatch"' in legend and '<line class="series {{ css }}"' in legend
    assert ".v-out{stroke:#1f77b4;stroke-dasharray" in CSS and ".a-out{stroke:#ff7f0e;stroke-dasharray" in CSS
    assert ".v-in,.v-all{stroke:#1f77b4}" in CSS
    assert "border-left:14px" not in CSS  # the old swatches: one colour block for solid and dashed alike


def test_a_pick_that_names_no_clip_is_marked_wrong_even_in_a_bundle() -> None:
    asm = Result(
        task_id=84,
        family="assembly",
        status="scored",
        detail={"picks": ["1", "4.MP4", "2"], "correct": ["1", "4", "3"]},
    )
    m = model(("1.mp4", "2.mp4", "3.mp4", "4.mp4"))
    for policy in (LOCAL, published()):
        rows = evidence.assembly(asm, m, NoThumbs(), policy=policy).rows  # type: ignore[arg-type]
        slot = rows[1]["chosen"]
        assert slot.mark == "bad" and slot.missing == "no clip of this task has this id"
    assert evidence.assembly(asm, m, NoThumbs(), policy=published()).rows[0]["chosen"].mark == ""  # type: ignore[arg-type]
    assert ".thumb.bad .noimg{outline" in CSS


def test_sequencing_marks_nothing_in_a_bundle() -> None:
    seq = Result(
        task_id=37,
        family="sequencing",
        status="scored",
        detail={"pred": ["1", "3", "2"], "correct": ["1", "2", "3"]},
    )
    ev = evidence.sequencing(seq, model(), NoThumbs(), policy=published())  # type: ignore[arg-type]
    assert {t.mark for t in ev.strips[0][1]} == {""}
    local = evidence.sequencing(seq, model(), NoThumbs(), policy=LOCAL)  # type: ignore[arg-type]
    assert [t.mark for t in local.strips[0][1]] == ["good", "bad", "bad"]


def test_a_failed_submission_has_no_empty_strips() -> None:
    seq = Result(
        task_id=37, family="sequencing", status="malformed", detail={"pred": [], "correct": ["1", "2"]}
    )
    ev = evidence.sequencing(seq, model(), NoThumbs(), policy=LOCAL)  # type: ignore[arg-type]
    assert [t for t, _ in ev.strips] == ["correct order"] and not any("pair" in n for n in ev.notes)
    bare = Result(task_id=37, family="sequencing", status="malformed", detail={})
    assert evidence.sequencing(bare, model(), NoThumbs(), policy=LOCAL).empty  # type: ignore[arg-type]
