"""Demo sizes: the full size has the real task counts, ids, durations and frame sizes, and the full layout
(generated here at a tiny frame size) loads and scores like the real benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.dataset.loader import load_tasks
from agenticvbench.dataset.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask
from agenticvbench.demo import DemoBenchmark, build_demo, default_demo_dir, is_complete
from agenticvbench.demo.ordering import assembly_specs, sequencing_specs
from agenticvbench.demo.recap import recap_specs
from agenticvbench.demo.repair import bounds_of, repair_plan
from agenticvbench.demo.sizes import FULL, MEDIUM, SMALL, TINY, get_size
from agenticvbench.errors import AVBError
from agenticvbench.results.model import iter_results

REAL_IDS = {
    "recap": list(range(1, 37)),
    "sequencing": list(range(37, 65)),
    "repair": list(range(65, 83)),
    "assembly": list(range(83, 101)),
}


def test_full_size_has_the_real_counts_and_ids() -> None:
    """The full and medium sizes must imitate the real benchmark's 36/28/18/18 tasks with their real ids."""
    for size in (FULL, MEDIUM, TINY):
        assert {fam: size.ids(fam) for fam in REAL_IDS} == REAL_IDS
        assert [s.task_id for s in recap_specs(size)] == REAL_IDS["recap"]
        assert [s.task_id for s in sequencing_specs(size)] == REAL_IDS["sequencing"]
        assert [s.task_id for s in repair_plan(size)[1]] == REAL_IDS["repair"]
        assert [s.task_id for s in assembly_specs(size)] == REAL_IDS["assembly"]
    assert FULL.first(3).ids("repair") == [65, 66, 67] and FULL.first(3).name == "full-first3"


def test_full_size_media_have_real_durations_and_frame_sizes() -> None:
    """Recap films last minutes at 1080p, repair sources 90-240 s at 720p/1080p, clip sets real-length shots."""
    for rs in recap_specs(FULL):
        length = sum(sc.duration for sc in rs.scenes)
        assert 180 <= length <= 360 and (rs.fmt.width, rs.fmt.height) == (1920, 1080), rs.task_id
        for t0, t1 in rs.perfect:  # every cut point still inside the (stretched) film
            assert 0 <= t0 < t1 <= length
    sources, repairs = repair_plan(FULL)
    assert len(sources) == 6
    for name, (fmt, scenes) in sources.items():
        assert 90 <= sum(sc.duration for sc in scenes) <= 240, name
        assert (fmt.width, fmt.height) in {(1280, 720), (1920, 1080)}
    assert {fmt.audio for fmt, _ in sources.values()} == {"aac", "opus"}
    assert {r.defect for r in repairs} == {"freeze", "color", "noise"}
    for r in repairs:  # the defect window lies inside its target scene, on whole frames
        a, b = bounds_of(sources[r.source][1])[r.scene]
        assert a < r.start < r.end < b and float(r.start).is_integer(), r.task_id
    for sq in sequencing_specs(FULL):
        assert 6 <= len(sq.shots) <= 12 and all(3 <= s.duration <= 8 for s in sq.shots)
        assert sorted(sq.correct_order, key=int) == [str(k) for k in range(1, len(sq.shots) + 1)]
        assert (sq.fmt.width, sq.fmt.height) == (1920, 1080)
    for asm in assembly_specs(FULL):
        assert 4 <= len(asm.slots) <= 8 and all(3 <= d <= 8 for *_, d in asm.slots)
        clips = [c for good, bad, _, _ in asm.slots for c in (good, *bad)]
        assert sorted(clips) == sorted(f"{k}.mp4" for k in range(1, 3 * len(asm.slots) + 1))


def test_sizes_by_name_and_their_default_folders() -> None:
    """`--size` names resolve; the small demo keeps its folder, other sizes get their own; bad names fail."""
    assert get_size("full") is FULL and get_size(SMALL) is SMALL
    assert default_demo_dir("small") == default_demo_dir()
    assert default_demo_dir("full").name.endswith("-full")
    with pytest.raises(AVBError, match="unknown demo size"):
        get_size("huge")
    with pytest.raises(AVBError, match="hand-written"):
        SMALL.first(1)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> DemoBenchmark:
    """The full layout (100 tasks, three runs) with 2-s shots at 64x36: built once for this module."""
    return build_demo(tmp_path_factory.mktemp("tiny") / "demo", size=TINY)


@pytest.mark.slow
def test_tiny_full_layout_loads_as_the_real_benchmark(tiny: DemoBenchmark) -> None:
    """A full-layout build must give `load_tasks` 100 typed tasks with the real ids, and be marked by size."""
    tasks = load_tasks(dataset=tiny.mirror)
    by_type: dict[type, list[int]] = {}
    for t in tasks:
        by_type.setdefault(type(t), []).append(t.task_id)
    assert by_type == {
        RecapTask: REAL_IDS["recap"],
        SequencingTask: REAL_IDS["sequencing"],
        RepairTask: REAL_IDS["repair"],
        AssemblyTask: REAL_IDS["assembly"],
    }
    assert is_complete(tiny.root, TINY) and not is_complete(tiny.root, SMALL)
    assert all(p.is_dir() for p in tiny.runs.values())


@pytest.mark.slow
def test_tiny_full_layout_perfect_run_scores_one(
    tiny: DemoBenchmark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`avb verify` over the full layout: the perfect run scores 1.0 on every non-recap task, nothing errors.

    Recap is scored on two tasks only (one of each rubric template): its python checks are the slow part and
    the other 34 films are the same two films again.
    """
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "results"
    rc = main(
        [
            "verify",
            str(tiny.runs["perfect"]),
            "--dataset",
            str(tiny.mirror),
            "--out",
            str(out),
            "--tasks",
            "1,2,37-100",
            "--jobs",
            "2",
            "--judge",
            "off",
            "-q",
        ]
    )
    assert rc == 0
    results = iter_results(out)
    assert sorted(r.task_id for r in results) == [1, 2, *range(37, 101)]
    assert all(r.status == "scored" for r in results)
    for r in results:
        if r.family == "repair":
            assert r.final_score > 0.99, (r.task_id, r.final_score)
        elif r.family != "recap":
            assert r.headline_score == 1.0, (r.task_id, r.headline_score)


def test_grading_doc_counts_the_demo_judge_items_per_modality() -> None:
    """docs/grading.md tells a user the demo cannot lift the calibration gate (120 items per modality) from its
    item counts per demo size; they are the rubrics' llm and compound items routed as the judge routes them
    (`runner.judge_request`), over the two runs with a recap video (perfect and partial), so a rubric change
    cannot leave the page quoting old numbers."""
    import re
    from collections import Counter

    from agenticvbench.judge.routing import MODALITIES
    from agenticvbench.verifiers.recap.rubric import parse_rubric
    from agenticvbench.verifiers.recap.runner import judge_request

    page = (Path(__file__).resolve().parents[1] / "docs" / "grading.md").read_text(encoding="utf-8")
    for size, label in ((SMALL, "`avb demo` (small)"), (MEDIUM, "`avb demo --size medium` (and `full`)")):
        counts: Counter[str] = Counter()
        for spec in recap_specs(size):
            items, _ = parse_rubric(list(spec.rubric))
            for item in items:
                stage = next((s.prompt for s in item.stages if s.dispatch == "llm"), None)
                text = item.prompt if item.dispatch == "llm" else stage
                if item.dispatch in ("llm", "compound"):
                    counts[judge_request(item, text or "").route.modality] += 2  # perfect and partial
        row = re.search(rf"^\| {re.escape(label)} \| (\d+) \| ([\d /]+) \| (\d+) \|$", page, flags=re.M)
        assert row, label
        assert int(row.group(1)) == 2 * len(recap_specs(size))
        assert [int(x) for x in row.group(2).split(" / ")] == [counts[m] for m in MODALITIES]
        assert int(row.group(3)) == sum(counts.values())
        assert min(counts[m] for m in ("visual", "audio")) < 120  # every result judges audio: never lifted
