"""A step as `avb view` draws it (`view/steps.py`): the media markers, and what a page withholds of a step
(`Withheld`): its texts, and for a flagged step of a solved task the paths and URLs it named."""

from __future__ import annotations

import pytest

from agenticvbench.trajectory.model import make_step
from agenticvbench.view.steps import MARKS, Withheld, marks, row, short_url


@pytest.mark.parametrize(
    ("tool", "args", "want"),
    [
        ("Bash", {"command": "ffprobe -show_streams a.mp4"}, ("probe",)),
        ("video_probe", {"path": "a.mp4"}, ("probe",)),
        ("Bash", {"command": "ffmpeg -ss 3 -i a.mp4 -frames:v 1 f.jpg"}, ("frames",)),
        ("exec", {"command": "python -c 'import cv2; cv2.VideoCapture(\"a.mp4\")'"}, ("frames",)),
        ("extract_frames", {"video": "a.mp4"}, ("frames",)),
        ("Read", {"file_path": "/w/frames/f_001.png"}, ("image",)),
        ("Read", {"file_path": "/w/notes.txt"}, ()),
        ("Bash", {"command": "ffmpeg -i a.mp4 -c copy -t 2 b.mp4"}, ("ffmpeg",)),
        ("Bash", {"command": "ls frames"}, ()),
        (None, "I will run ffprobe next", ()),
    ],
)
def test_media_marks(tool, args, want) -> None:
    """The documented heuristic: probes, frame extraction, images read, other ffmpeg runs; prose never."""
    step = make_step(0, role="agent", tool=tool, arguments=args)
    assert marks(step) == want and set(want) <= set(MARKS)


def _row(withheld: Withheld, flags: tuple[tuple[str, str], ...] = (("answer_access", "the parquet"),)):
    step = make_step(
        3, role="agent", tool="WebFetch", arguments={"url": "https://paste.example.com/order/4-1-6-2-5-3"}
    )
    return row(step, "step-3", (None, None), flags, withheld)


def test_what_a_row_withholds() -> None:
    """Shown: every text. A flagged step under `flagged` keeps its tool, flag and the URL it named; under
    `named` (a solved task in a bundle) the URL goes too, since it can carry the answer; `steps` empties every
    row, flagged or not."""
    shown = _row(Withheld())
    assert "4-1-6-2-5-3" in shown.arguments and shown.named and not shown.withheld
    flagged = _row(Withheld(flagged="flagged text withheld"))
    assert not flagged.arguments and flagged.named == ("https://paste.example.com/order/4-1-6-2-5-3",)
    solved = _row(Withheld(flagged="flagged text withheld", steps="solved", named="so are the paths"))
    assert solved.tool == "WebFetch" and solved.flags and solved.named == () and not solved.summary
    assert solved.withheld == "flagged text withheld; so are the paths"
    every = _row(Withheld(steps="every step withheld"), flags=())
    assert (every.summary, every.arguments, every.result, every.withheld) == (
        "",
        "",
        "",
        "every step withheld",
    )


def test_a_bundle_names_a_url_without_its_query() -> None:
    """An unsolved task's flagged step named `https://example.com/check?task=37&order=4,1,6,2,5,3`, another task's
    order, and the bundle printed it whole: under `short_urls` a named URL keeps scheme, host and path only (no
    user, query or fragment), and a URL that does not parse is cut at its query."""
    step = make_step(
        3,
        role="agent",
        tool="WebFetch",
        arguments={"url": "https://u:p@example.com/check?task=37&order=4,1,6,2,5,3#x"},
    )
    flags = (("web_access", "a web tool (WebFetch)"),)
    shown = row(step, "step-3", (None, None), flags, Withheld(flagged="withheld"))
    assert any("4,1,6,2,5,3" in n for n in shown.named)
    short = row(step, "step-3", (None, None), flags, Withheld(flagged="withheld", short_urls=True))
    assert short.named == ("https://example.com/check",)
    assert short_url("http://[::1/x?order=4") == "http://[::1/x"


def test_a_solved_tasks_flag_keeps_its_why_without_detail() -> None:
    """A solved task's flag quoted the URL tail that spells the answer (`the dataset repository
    (sequencing/materials/order-4-1-6-2-5-3)`): under `short_whys` the row keeps the rule and the why's head."""
    flags = (("answer_access", "the dataset repository (sequencing/materials/order-4-1-6-2-5-3)"),)
    step = make_step(0, role="agent", tool="Bash", arguments={"command": "curl -s x"})
    kept = row(step, "step-0", (None, None), flags, Withheld(flagged="withheld", short_whys=True))
    assert kept.flags == (("answer_access", "the dataset repository"),)
    assert row(step, "step-0", (None, None), flags, Withheld()).flags == flags
