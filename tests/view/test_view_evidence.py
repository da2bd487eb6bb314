"""The evidence builders on their own: recap times read from the checks' reasons, sequencing's disagreeing
pairs against scipy's Kendall tau, and what a public (bundle) page drops."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau

from agenticvbench.results.model import Result
from agenticvbench.view import evidence
from agenticvbench.view.disclosure import LOCAL, published
from agenticvbench.view.model import ViewModel
from agenticvbench.view.thumbs import Thumbnailer


@pytest.mark.parametrize(
    ("reason", "times"),
    [
        (
            "longest black run 2s at 4-6 s (max 0.5 s, pix_th 0.1, runs ending after 10.5 s ignored)",
            [4.0, 6.0],
        ),
        ("longest freeze 1.5s at 12.25 s (max 1 s)", [12.25]),
        ("duration 10.5s (range 8-16 s)", []),
        ("longest shot 2.5s over 5 shots (max 4 s)", []),
    ],
)
def test_item_times_come_from_the_reason(reason: str, times: list[float]) -> None:
    """Only an "at T s" / "at A-B s" phrase names a time; ranges of limits ("range 8-16 s") do not."""
    assert evidence.item_times(reason) == times


def model() -> ViewModel:
    """A model without tasks (no inputs: thumbnails are absent, which these tests do not look at)."""
    return ViewModel(runs=[], report=None, tasks={}, local=False)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(5))
def test_disagreeing_pairs_match_kendall_tau(seed: int, tmp_path: Path) -> None:
    """The number of pairs the page lists as "in the other order" is the discordant-pair count, which for a
    permutation without ties is (1 - tau) * n (n - 1) / 4 with scipy's tau."""
    rng = np.random.default_rng(seed)
    n = 9
    correct = [str(i) for i in range(1, n + 1)]
    pred = [correct[i] for i in rng.permutation(n)]
    r = Result(task_id=37, family="sequencing", status="scored", detail={"pred": pred, "correct": correct})
    ev = evidence.sequencing(r, model(), Thumbnailer(tmp_path, progress=False), policy=LOCAL)
    listed = int(re.match(r"(\d+) pair", ev.notes[0]).group(1))
    tau = kendalltau([correct.index(c) for c in pred], list(range(n))).statistic
    assert listed == round((1 - tau) * n * (n - 1) / 4)
    marks = [t.mark for t in ev.strips[0][1]]
    assert marks == ["good" if p == c else "bad" for p, c in zip(pred, correct, strict=True)]


def test_public_evidence_drops_the_answers(tmp_path: Path) -> None:
    """Public: no correct-order strip, no pair note, no marks; no expected clip per slot; no gold window."""
    th = Thumbnailer(tmp_path, progress=False)
    seq = Result(
        task_id=37, family="sequencing", status="scored", detail={"pred": ["2", "1"], "correct": ["1", "2"]}
    )
    ev = evidence.sequencing(seq, model(), th, policy=published())
    assert [title for title, _ in ev.strips] == ["submitted order"] and not ev.notes
    assert {t.mark for t in ev.strips[0][1]} == {""}
    asm = Result(
        task_id=83, family="assembly", status="scored", detail={"picks": ["2.mp4"], "correct": ["7.mp4"]}
    )
    assert all(
        row["expected"] is None for row in evidence.assembly(asm, model(), th, policy=published()).rows
    )
    detail = {
        "localization": {"predicted_window_s": [1, 2], "truth_window_s": [3, 4]},
        "edit": {"chunks": []},
    }
    rep = Result(task_id=65, family="repair", status="scored", detail=detail)
    assert evidence.repair(rep, policy=published()).timeline["gold"] is None
    assert evidence.repair(rep, policy=LOCAL).timeline["gold"] == (3.0, 4.0)
