"""Trivial-strategy baselines on the demo: every strategy's score as the engine computes it, the properties those
scores must have whatever the engine computes, the integrity flags each gaming-shaped strategy raises, and the floor
shown on leaderboards equal to what `avb baselines` prints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agenticvbench.baselines import STRATEGIES, baselines
from agenticvbench.baselines.strategies import brief_duration, slot_groups
from agenticvbench.cli.main import main
from agenticvbench.dataset.loader import load_tasks
from agenticvbench.media import probe
from agenticvbench.scoring.engine import verify_run
from agenticvbench.verifiers.assembly import adjust

pytestmark = pytest.mark.slow  # every test here scores the demo or builds an environment

#: What the engine produced for each (strategy, task) on the small demo (headline score). Pinned so that a change
#: of any verifier, writer or flag shows here; the properties below say why each value is what it is.
PINNED: dict[tuple[str, int], float] = {
    **{("nothing", t): 0.0 for t in (1, 2, 37, 38, 65, 66, 67, 83, 84)},
    ("copy_input", 1): 2 / 7,
    ("copy_input", 2): 8 / 17,
    ("copy_input", 65): 0.28999947852976254,
    ("copy_input", 66): 0.10999982920796927,
    ("copy_input", 67): 0.6448184740611729,
    ("black_picture", 1): 0.5,
    ("black_picture", 2): 13 / 15,
    ("one_frame", 65): 0.6282318674148052,
    ("one_frame", 66): 0.5814747140631881,
    ("one_frame", 67): 0.6413451681114017,
    ("whole_window", 65): 0.350714378666126,
    ("whole_window", 66): 0.17842106690344312,
    ("whole_window", 67): 0.7105908920657876,
    ("one_frame_whole_window", 65): 0.6889467675511686,
    ("one_frame_whole_window", 66): 0.6498959517586619,
    ("one_frame_whole_window", 67): 0.7071175861160167,
    **{(s, t): 0.0 for s in ("given_order", "numeric_order") for t in (37, 38)},
    **{(s, t): 0.0 for s in ("first_candidate", "random_picks") for t in (83, 84)},
}
#: The official sequencing scorer (PhiloLabs/AgentVBench f058cd6, `python -m verifiers.sequencing.score`) on the
#: given-order manifests of demo tasks 37 and 38: final_score (its adjusted_final_score is 0.0 for both).
OFFICIAL_GIVEN_ORDER_FINAL = {37: 0.2833333333333333, 38: 0.25333333333333335}
EXPECTED_FLAG = {
    "copy_input": "identical_to_input",
    "one_frame": "degenerate_video",
    "one_frame_whole_window": "degenerate_video",
    "whole_window": "identical_to_input",
    "given_order": "given_order",
    "numeric_order": "given_order",
}


@pytest.fixture(scope="module")
def table(demo):
    """The baselines of the whole demo, in the default root of the session cache (shared with report tests)."""
    return baselines(dataset=demo.mirror, jobs=2)


def _by(table):
    return {(r["strategy"], r["task_id"]): r for r in table.per_task()}


def test_every_strategy_scores_as_pinned(table):
    """Each strategy's per-task headline is what the engine computed when pinned, and every cell is covered."""
    got = _by(table)
    assert set(got) == set(PINNED)
    for key, value in PINNED.items():
        assert got[key]["headline"] == pytest.approx(value, abs=1e-9), key
    assert not [r for r in table.results if r.status == "error"]


def test_nothing_scores_zero_and_is_missing(table):
    """An empty task folder scores 0 in every family, as `missing` (the output file is absent)."""
    mine = [r for r in table.results if r.run["model"] == "nothing"]
    assert {r.family for r in mine} == {"recap", "sequencing", "repair", "assembly"}
    assert all(r.status == "missing" and r.headline_score == 0.0 for r in mine)


def test_repair_holes_are_ordered(table):
    """The official rules pay for the holes: one frame beats handing back the broken video on average (D-R7),
    and a whole-video window adds localisation points to the same video on every task."""
    got = _by(table)
    ids = (65, 66, 67)
    mean = {s: sum(got[(s, t)]["headline"] for t in ids) / 3 for s in ("copy_input", "one_frame")}
    assert mean["one_frame"] > mean["copy_input"] + 0.2
    for t in ids:
        assert got[("whole_window", t)]["headline"] > got[("copy_input", t)]["headline"]
        assert got[("one_frame_whole_window", t)]["headline"] > got[("one_frame", t)]["headline"]


def test_given_orders_match_the_official_scorer(table, demo):
    """The demo lists clips 1..n, so the given and numeric orders are one order; its official final_score is the
    official scorer's, and the chance adjustment zeroes the headline."""
    for s in ("given_order", "numeric_order"):
        for r in (r for r in table.results if r.run["model"] == s):
            assert r.final_score == pytest.approx(OFFICIAL_GIVEN_ORDER_FINAL[r.task_id], abs=1e-12)
            assert r.adjusted_final_score == 0.0 and r.detail["pred"] == sorted(r.detail["pred"], key=int)


def test_assembly_picks_agree_with_an_independent_count(table, demo):
    """first_candidate and each random rep score exactly n_correct / n_slots from their own picks, recounted
    here from the rubric; random_picks has 5 seeded reps, reproducible."""
    tasks = {t.task_id: t for t in load_tasks("assembly", dataset=demo.mirror)}
    for r in (r for r in table.results if r.family == "assembly" and r.run["model"] != "nothing"):
        task = tasks[r.task_id]
        picks = r.detail["picks"]
        groups = slot_groups(task)
        assert all(p in g for p, g in zip(picks, groups, strict=True))
        n_correct = sum(p == c for p, c in zip(picks, task.correct_assembly_in_slot_order, strict=True))
        assert r.final_score == n_correct / task.n_slots
        assert r.adjusted_final_score == adjust(n_correct / task.n_slots)
        if r.run["model"] == "first_candidate":
            assert picks == [g[0] for g in groups]
    reps = {r.run["rep"] for r in table.results if r.run["model"] == "random_picks"}
    assert reps == {1, 2, 3, 4, 5}
    cell = next(c for c in table.cells() if c.strategy == "random_picks")
    assert cell.n_runs == 5 and cell.n_tasks == 2


def test_black_picture_lasts_the_brief(table, demo):
    """The black picture runs the middle of the brief's duration range and is not flagged as the film."""
    tasks = {t.task_id: t for t in load_tasks("recap", dataset=demo.mirror)}
    for r in (r for r in table.results if r.run["model"] == "black_picture"):
        out = Path(table.root) / "black_picture" / str(r.task_id) / "final.mp4"
        film_s = probe(tasks[r.task_id].materials()[0]).duration or 0.0
        assert probe(out).duration == pytest.approx(brief_duration(tasks[r.task_id], film_s), abs=0.05)
        assert r.integrity == []


def test_each_gaming_strategy_raises_its_flag(table):
    """Each gaming-shaped strategy carries its flag on every task, and honest-shaped ones carry none."""
    for r in table.results:
        expected = EXPECTED_FLAG.get(r.run["model"])
        if expected is None:
            assert r.integrity == [], (r.run["model"], r.task_id)
        else:
            assert expected in r.integrity, (r.run["model"], r.task_id)
            assert any(w.startswith(f"INTEGRITY {expected}") for w in r.warnings)


def test_flags_do_not_fire_on_the_perfect_run(demo, tmp_path):
    """The demo's perfect run (real work in every family) carries no integrity flag."""
    summary = verify_run(demo.runs["perfect"], dataset=demo.mirror, out=tmp_path / "res", jobs=2)
    assert summary.results and all(r.integrity == [] for r in summary.results)


def test_a_remuxed_film_is_a_near_copy(demo, tmp_path):
    """A recap that is the film with other bytes (stream copy, new metadata) escapes the byte check but is
    flagged `near_copy_of_input`; its score is kept."""
    from agenticvbench.demo.media_gen import remux

    task = load_tasks(task_ids=[2], dataset=demo.mirror)[0]
    run = tmp_path / "run"
    (run / "2").mkdir(parents=True)
    remux(task.materials()[0], run / "2" / "final.mp4", "not the same bytes")
    r = verify_run(run, dataset=demo.mirror, task_ids=[2], jobs=1).results[0]
    assert r.status == "scored" and r.integrity == ["near_copy_of_input"]


def test_a_rerun_writes_nothing_and_reuses_every_result(table, demo):
    """Results are cached like any run: the second call rewrites no output and rescores nothing."""
    again = baselines(dataset=demo.mirror)
    assert len(again.results) == len(table.results)
    assert all(r.resumed for r in again.results)
    assert again.floor() == table.floor()


def test_the_floor_is_the_best_strategy_per_family(table):
    """The floor names, per family, the strategy with the highest cell; macro/micro follow the leaderboard rule."""
    floor = table.floor()
    cells = table.cells()
    for fam, entry in floor.families.items():
        assert entry.mean == max(c.mean for c in cells if c.family == fam)
    assert floor.families["repair"].strategy == "one_frame_whole_window"
    assert floor.families["recap"].strategy == "black_picture"
    assert floor.families["sequencing"].strategy == "nothing"  # a 0 tie goes to the first listed
    assert floor.macro == pytest.approx(sum(e.mean for e in floor.families.values()) / 4)
    n = {"recap": 2, "sequencing": 2, "repair": 3, "assembly": 2}
    assert floor.micro == pytest.approx(sum(e.mean * n[f] for f, e in floor.families.items()) / 9)


def test_leaderboard_floor_row_equals_avb_baselines(table, demo, tmp_path, capsys):
    """The floor row of `avb leaderboard --baselines ROOT` is the floor `avb baselines` prints: the same
    numbers in JSON, and in Markdown the same cells at the rows' 4 decimals with the rows' marks."""
    assert main(["baselines", "--dataset", str(demo.mirror), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    root = printed["root"]
    assert main(["baselines", "--dataset", str(demo.mirror)]) == 0
    md_row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| floor"))
    shutil.copytree(demo.runs["perfect"], tmp_path / "perfect", ignore=shutil.ignore_patterns("avb-results"))
    verify_run(tmp_path / "perfect", dataset=demo.mirror, jobs=2)
    assert (
        main(
            [
                "leaderboard",
                str(tmp_path / "perfect"),
                "--baselines",
                root,
                "--format",
                "json",
                "--resamples",
                "0",
            ]
        )
        == 0
    )
    board = json.loads(capsys.readouterr().out)
    assert board["floor"]["families"] == printed["floor"]["families"]
    assert board["floor"]["macro"] == printed["floor"]["macro"]
    assert main(["leaderboard", str(tmp_path / "perfect"), "--baselines", root, "--resamples", "0"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "floor: best trivial" in line)
    for cell in md_row.strip("|").split("|")[1:]:  # `0.683† (black_picture)` -> `0.6833 † (black_picture)`
        value, strategy = cell.split()
        number, marks = value[:5], value[5:]
        shown = next(c.strip() for c in row.split("|") if c.strip().endswith(strategy))
        assert shown.startswith(number) and len(shown.split()[0]) == 6  # the rows' 4 decimals
        assert (shown.split()[1] if len(shown.split()) == 3 else "") == marks  # the same marks in both
    assert (
        "0.6833 † (black_picture)" in row and "0.6820 ! (one_frame_whole_window)" in row
    )  # marks as any row
    assert main(["leaderboard", str(tmp_path / "perfect"), "--no-floor", "--resamples", "0"]) == 0
    assert "floor: best trivial" not in capsys.readouterr().out


def test_strategies_cover_every_family():
    """Every family has `nothing` first, then its copy-of-input or given-order strategies."""
    by_family = {
        f: [s.name for s in STRATEGIES if f in s.families]
        for f in ("recap", "sequencing", "repair", "assembly")
    }
    assert by_family == {
        "recap": ["nothing", "copy_input", "black_picture"],
        "sequencing": ["nothing", "given_order", "numeric_order"],
        "repair": ["nothing", "copy_input", "one_frame", "whole_window", "one_frame_whole_window"],
        "assembly": ["nothing", "first_candidate", "random_picks"],
    }
