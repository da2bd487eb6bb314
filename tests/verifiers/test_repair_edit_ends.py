"""Edit rubric against official numbers where a fixed video ends early, ends on a chunk boundary, or starts its
audio late: the committed pairs of `tests/data/repair-edit-ends` (`make.py` there), scored by the official
`score_edit` (PhiloLabs/AgentVBench f058cd6) with Debian 12's ffmpeg 5.1, as the official scorer runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenticvbench.verifiers.repair.edit import score_edit

DATA = Path(__file__).resolve().parents[1] / "data" / "repair-edit-ends"
CASES = {c["fixed"]: c for c in json.loads((DATA / "expected.json").read_text())["cases"]}
EDIT_TOL = 0.001  # on the 0..1 edit scale, the bar
SIGNALS = ("video_ssim_in", "video_ssim_out", "audio_xcorr_in", "audio_xcorr_out")


def _score(case: dict[str, Any]) -> Any:
    return score_edit(
        DATA / case["fixed"],
        DATA / case["source"],
        duration_s=case["duration_s"],
        window=tuple(case["window"]),
        video_share=case["video_share"],
        audio_share=case["audio_share"],
        workers=2,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_edit_matches_the_official_scorer(name: str) -> None:
    """Edit within 0.001 of the official value (measured: within 2e-7), and every chunk's video and audio signal
    within 1e-6, None exactly where the official has None (chunks past the end of the fix)."""
    case = CASES[name]
    ours, official = _score(case), case["official"]
    assert ours.score / 60 == pytest.approx(official["score"] / 60, abs=EDIT_TOL)
    assert ours.score == pytest.approx(official["score"], abs=1e-4)
    assert len(ours.detail["chunks"]) == len(official["chunks"])
    for mine, theirs in zip(ours.detail["chunks"], official["chunks"], strict=True):
        for key in SIGNALS:
            assert (mine[key] is None) == (theirs[key] is None), (theirs["start_s"], key)
            if theirs[key] is not None:
                assert mine[key] == pytest.approx(theirs[key], abs=1e-6), (theirs["start_s"], key)


@pytest.mark.slow
def test_the_chunk_after_a_fix_that_ends_on_a_boundary_is_its_end_padding() -> None:
    """Regression: the Opus fix ends at 20.000 s, the profile at 32 s. The official chunk at 20 s compares the
    fix's 648 samples of end padding with the source's first 648 samples after its keyframe at 20 s, where the
    source's decode starts afresh (its transient), and weights that like a full 10-s chunk. Slicing one
    whole-file decode gave xcorr 0.2931 there instead of the official 0.3066, and the edit was 3.05e-3 low
    (above the 0.001 bar)."""
    case = CASES["fixed_opus_end20.mp4"]
    ours = _score(case)
    at_end = next(c for c in ours.detail["chunks"] if c["start_s"] == 20.0)
    official = next(c for c in case["official"]["chunks"] if c["start_s"] == 20.0)
    assert at_end["audio_xcorr_out"] == pytest.approx(official["audio_xcorr_out"], abs=1e-6)
    assert at_end["n_video_in"] + at_end["n_video_out"] == 0  # no fixed frame there: audio only
    assert ours.detail["engine"]["audio_mode"] == "seek"
