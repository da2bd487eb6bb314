"""Agreement statistics, checked against independent implementations and textbook values."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.grade.agreement import bootstrap_ci, cohen_kappa, fleiss_kappa
from agenticvbench.grade.store import HumanVerdict, VerdictStore
from agenticvbench.judge.cache import CACHE_SCHEMA


@pytest.mark.parametrize("seed", range(8))
def test_cohen_kappa_matches_scikit_learn(seed: int) -> None:
    """On generated verdicts (varied size, prevalence and agreement) our kappa equals scikit-learn's."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(seed)
    n = rng.randint(10, 300)
    p, flip = rng.uniform(0.1, 0.9), rng.uniform(0.0, 0.5)
    a = ["pass" if rng.random() < p else "fail" for _ in range(n)]
    b = [x if rng.random() > flip else ("fail" if x == "pass" else "pass") for x in a]
    assert cohen_kappa(a, b) == pytest.approx(metrics.cohen_kappa_score(a, b), abs=1e-12)


def test_kappa_undefined_and_interval() -> None:
    """One label throughout (chance agreement 1) has no kappa; the bootstrap interval brackets the estimate."""
    assert cohen_kappa(["pass"] * 5, ["pass"] * 5) is None
    rng = random.Random(1)
    a = ["pass" if rng.random() < 0.6 else "fail" for _ in range(200)]
    b = [x if rng.random() > 0.2 else ("fail" if x == "pass" else "pass") for x in a]
    k = cohen_kappa(a, b)
    lo, hi = bootstrap_ci(a, b)  # type: ignore[misc]
    assert k is not None and lo < k < hi and hi - lo < 0.4


def test_fleiss_kappa_textbook_example() -> None:
    """The worked example of Fleiss (1971) as reproduced on Wikipedia ("Fleiss' kappa"): 10 subjects, 14 raters,
    5 categories, kappa = 0.210."""
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    assert fleiss_kappa(counts) == pytest.approx(0.2099, abs=5e-4)


def test_fleiss_kappa_matches_the_formula_on_random_tables() -> None:
    """On random rating tables our Fleiss' kappa equals the definition computed here in a few numpy lines
    (mean per-subject agreement P_bar against chance agreement P_e from the category shares)."""
    import numpy as np

    rng = np.random.default_rng(5)
    for _ in range(20):
        n_raters = int(rng.integers(3, 8))
        table = np.array(
            [rng.multinomial(n_raters, [0.5, 0.3, 0.2]) for _ in range(int(rng.integers(5, 40)))]
        )
        p_i = ((table**2).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1))
        p_j = table.sum(axis=0) / table.sum()
        expected = (p_i.mean() - (p_j**2).sum()) / (1 - (p_j**2).sum())
        assert fleiss_kappa(table.tolist()) == pytest.approx(expected, abs=1e-12)


def test_avb_judge_agree_human_vs_model_and_fleiss(tmp_path: Path, capsys) -> None:
    """`avb judge agree` joins a grader and a model judge's cache on (task, item, video hash), and reports
    agreement, kappa, confusion, prevalence and, for three sources, Fleiss' kappa."""
    store = VerdictStore(tmp_path / "grades")
    rng = random.Random(3)
    truth = {}
    for i in range(40):
        key = (1 + i % 4, f"I-{i}", f"{i:064x}")
        truth[key] = "pass" if rng.random() < 0.5 else "fail"
        for g, noise in (("alice", 0.1), ("bob", 0.2), ("carol", 0.3)):
            v = truth[key] if rng.random() > noise else ("fail" if truth[key] == "pass" else "pass")
            store.append(
                HumanVerdict(
                    grader=g, task_id=key[0], item_id=key[1], video_sha256=key[2], verdict=v, pillar=i % 4
                )
            )
        atomic_write_json(
            tmp_path / "judge" / "ab" / f"k{i}.json",
            {
                "schema": CACHE_SCHEMA,
                "key": f"k{i}",
                "model": "m1",
                "outcome": truth[key],
                "item_id": key[1],
                "task_id": key[0],
                "video_sha256": key[2],
            },
        )
    assert (
        main(
            [
                "judge",
                "agree",
                "human:alice",
                "model:m1",
                "human:bob",
                "human:carol",
                "--cache-dir",
                str(tmp_path),
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    first = report["pairs"][0]
    assert (first["a"], first["b"]) == ("human:alice", "model:m1")
    o = first["overall"]
    assert o["n"] == 40 and sum(map(sum, o["confusion"])) == 40
    assert o["agreement"] == pytest.approx((o["confusion"][0][0] + o["confusion"][1][1]) / 40)
    assert set(first["pillars"]) == {"0", "1", "2", "3"}
    assert report["fleiss"]["n"] == 40 and report["fleiss"]["kappa"] is not None
    assert main(["judge", "agree", "human:alice", "--cache-dir", str(tmp_path)]) == 2
    assert main(["judge", "agree", "alice", "bob", "--cache-dir", str(tmp_path)]) == 2


def test_unknown_grader_is_named_with_the_known_ones(tmp_path: Path, capsys) -> None:
    """Regression: `avb judge agree human:alice human:carol` with no verdicts from carol (a typo) printed n=0 and
    nothing else. It warns, naming the graders on record; the text names pillars as the grading page does."""
    store = VerdictStore(tmp_path / "grades")
    for g in ("alice", "bob"):
        store.append(
            HumanVerdict(grader=g, task_id=1, item_id="I-1", video_sha256="0" * 64, verdict="pass", pillar=2)
        )
    assert main(["judge", "agree", "human:alice", "human:carol", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "warning: no verdicts for grader 'carol' (known: alice, bob)" in out.err
    assert main(["judge", "agree", "human:alice", "human:bob", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.err == "" and "pillar 2 (narrative): n=1" in out.out
