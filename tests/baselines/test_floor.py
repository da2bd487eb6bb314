"""The floor from synthetic baseline results (no engine): the table's arithmetic against an independent count, and
the floor in every leaderboard format, in the report's notes and JSON, and in the headline plot."""

from __future__ import annotations

import json

import pytest

from agenticvbench.analysis.task_universe import task_universe
from agenticvbench.baselines.floor import NO_FLOOR, floor_for
from agenticvbench.baselines.table import BaselineTable
from agenticvbench.report import build_report, render_markdown
from agenticvbench.report.leaderboard import build_leaderboard
from agenticvbench.report.plots import family_bars
from agenticvbench.results.model import Result, write_result

TASKS = {"sequencing": (37, 38), "repair": (65, 66, 67)}


def _result(
    task_id: int,
    family: str,
    score: float,
    model: str,
    rep: int = 1,
    harness: str = "baseline",
    status: str = "scored",
) -> Result:
    return Result(
        task_id=task_id,
        family=family,
        status=status,  # type: ignore[arg-type]
        final_score=score,
        headline_score=score if status == "scored" else 0.0,
        provenance={"dataset": {"dataset": "nowhere", "kind": "hub", "resolved_revision": "x"}},
        run={"path": f"/b/{model}-{rep}", "harness": harness, "model": model, "rep": rep},
    )


def _baseline_results() -> list[Result]:
    out = [_result(t, f, 0.0, "nothing", status="missing") for f, ids in TASKS.items() for t in ids]
    out += [_result(37, "sequencing", 0.2, "given_order"), _result(38, "sequencing", 0.0, "given_order")]
    out += [
        _result(65, "repair", 0.6, "one_frame"),
        _result(66, "repair", 0.3, "one_frame"),
        _result(67, "repair", 0.9, "one_frame"),
    ]
    out += [
        _result(65, "repair", 0.5, "copy_input"),
        _result(66, "repair", 0.5, "copy_input"),
    ]  # 67: no result
    return out


def test_cells_and_floor_against_an_independent_count():
    """Cells are means over runs x tasks with a missing result counted 0; the floor is the best per family."""
    table = BaselineTable(_baseline_results(), dict(TASKS))
    cells = {(c.strategy, c.family): c.mean for c in table.cells()}
    assert cells[("given_order", "sequencing")] == pytest.approx((0.2 + 0.0) / 2)
    assert cells[("one_frame", "repair")] == pytest.approx((0.6 + 0.3 + 0.9) / 3)
    assert cells[("copy_input", "repair")] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    floor = table.floor()
    assert {f: e.strategy for f, e in floor.families.items()} == {
        "sequencing": "given_order",
        "repair": "one_frame",
    }
    assert floor.macro == pytest.approx((0.1 + 0.6) / 2)
    assert floor.micro == pytest.approx((0.1 * 2 + 0.6 * 3) / 5)


def test_floor_row_in_every_leaderboard_format():
    """md, csv, latex, html and json all carry the floor row with the strategy named."""
    floor = BaselineTable(_baseline_results(), dict(TASKS)).floor()
    agent = [_result(t, f, 0.5, "m", harness="h") for f, ids in TASKS.items() for t in ids]
    board = build_leaderboard(
        agent,
        tasks={k: list(v) for k, v in TASKS.items()},
        resamples=0,
        floor=floor,
        floor_note="from a test",
    )
    for fmt in ("md", "latex", "html"):
        text = board.render(fmt)
        assert "0.6000 (one" in text and "floor" in text, fmt
    assert "0.100 (given" in board.render("md") and "from a test" in board.render("md")
    csv_rows = board.render("csv").splitlines()
    assert any(line.startswith(",baseline,floor: best trivial strategy") for line in csv_rows)
    doc = json.loads(board.render("json"))
    assert (
        doc["floor"]["families"]["repair"]["strategy"] == "one_frame" and doc["floor_note"] == "from a test"
    )
    assert len(board.frame()) == 2 and board.frame().iloc[-1]["repair_marks"] == "one_frame"


def test_report_notes_json_and_plot_carry_the_floor():
    """The report states the floor in its notes and JSON, and the headline plot draws it (other pixels)."""
    floor = BaselineTable(_baseline_results(), dict(TASKS)).floor()
    agent = [_result(t, f, 0.5, "m", harness="h") for f, ids in TASKS.items() for t in ids]
    tasks = {k: list(v) for k, v in TASKS.items()}
    report = build_report(agent, tasks=tasks, resamples=0, floor=floor, floor_note="from a test")
    assert "Floor (best trivial strategy per family" in render_markdown(report)
    assert report.to_dict()["floor"]["families"]["sequencing"]["mean"] == pytest.approx(0.1)
    plain = family_bars(report.groups, report.universe.families)
    drawn = family_bars(report.groups, report.universe.families, floor=floor)
    assert drawn[:8] == b"\x89PNG\r\n\x1a\n" and drawn != plain
    without = build_report(agent, tasks=tasks, resamples=0)
    assert "Floor" not in render_markdown(without)


def test_no_floor_without_a_local_dataset_or_baselines():
    """Results naming a Hub dataset give no floor (never fetched implicitly), and the note says what to pass."""
    agent = [_result(37, "sequencing", 0.5, "m", harness="h")]
    floor, note = floor_for(task_universe(agent), results=agent)
    assert floor is None and note == NO_FLOOR


def test_baselines_dir_with_missing_tasks_says_so(tmp_path):
    """A baselines root lacking some of the table's tasks: those count 0, and the note counts them."""
    for r in _baseline_results():
        if r.family == "repair" and r.run["model"] == "one_frame":
            run = tmp_path / "one_frame"
            r.run = {**r.run, "path": str(run)}
            write_result(run / "avb-results", r)
    universe = task_universe([], tasks={"repair": [65, 66, 67, 68]})
    floor, note = floor_for(universe, baselines_dir=tmp_path)
    assert floor is not None and floor.families["repair"].mean == pytest.approx((0.6 + 0.3 + 0.9) / 4)
    assert "1 task(s) of this table have no baseline there" in note


def test_floor_row_carries_marks_at_the_rows_precision(tmp_path):
    """The floor row used to print `0.683 (black_picture)` with no † although its recap was unjudged, no ! although
    its repair results were flagged, and 3 decimals beside the rows' 4. Its cells now carry the marks of the chosen
    strategy's results (as `cell_marks` gives any row), macro/micro their union, and the footer the legend."""
    from agenticvbench.analysis.comparability import cell_marks

    tasks = {"recap": (1, 2), "repair": (65, 66, 67)}
    rows = [_result(t, "recap", 0.7, "black_picture") for t in (1, 2)]
    for r in rows:
        r.components = {"unscored": 3}
    rows += [_result(t, "repair", 0.6, "one_frame") for t in (65, 66, 67)]
    rows[2].integrity = ["degenerate_video"]
    rows += [_result(t, "repair", 0.1, "copy_input") for t in (65, 66, 67)]  # flagged nowhere, but lower
    for r in rows:
        run = tmp_path / r.run["model"]
        r.run = {**r.run, "path": str(run)}
        write_result(run / "avb-results", r)
    universe = task_universe([], tasks={k: list(v) for k, v in tasks.items()})
    floor, note = floor_for(universe, baselines_dir=tmp_path)
    assert floor is not None
    assert floor.marks == {
        "recap": ["unscored"],
        "repair": ["integrity"],
        "macro": ["unscored", "integrity"],
        "micro": ["unscored", "integrity"],
    }
    assert cell_marks([r for r in rows if r.run["model"] == "one_frame"])[0] == ["integrity"]  # same rule
    agent = [_result(t, f, 0.5, "m", harness="h") for f, ids in tasks.items() for t in ids]
    board = build_leaderboard(
        agent, tasks={k: list(v) for k, v in tasks.items()}, resamples=0, floor=floor, floor_note=note
    )
    md = board.render("md")
    floor_line = next(line for line in md.splitlines() if "floor: best trivial" in line)
    assert "0.7000 † (black_picture)" in floor_line and "0.6000 ! (one_frame)" in floor_line
    assert f"{(0.7 + 0.6) / 2:.4f} †!" in floor_line
    assert "floor † = recap llm items unscored" in md and "floor ! = some results carry integrity" in md
    frame = board.frame().iloc[-1]
    assert frame["recap_marks"] == "† black_picture" and frame["macro_marks"] == "†!"
    assert json.loads(board.render("json"))["floor"]["marks"]["repair"] == ["integrity"]


def test_baselines_table_marks_its_floor_row_as_the_leaderboard_does():
    """`avb baselines` printed the recap floor `0.683 (black_picture)` without the † the leaderboard shows, and its
    floor row dropped the ! of the strategy row it repeats. Now each strategy cell and the floor row carry the
    leaderboard's marks, and the legend names every mark used."""
    tasks = {"recap": (1, 2), "repair": (65, 66, 67)}
    rows = [_result(t, "recap", 0.7, "black_picture") for t in (1, 2)]
    for r in rows:
        r.components = {"unscored": 3}
    rows += [_result(t, "repair", 0.6, "one_frame") for t in (65, 66, 67)]
    rows[2].integrity = ["degenerate_video"]
    md = BaselineTable(rows, tasks).render("md")
    table = {line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("| ")}
    assert "| 0.700† |" in table["black_picture"] and "| 0.600! |" in table["one_frame"]
    assert "| 0.700† (black_picture) | 0.600! (one_frame) |" in table["floor (best trivial)"]
    assert "† = recap llm items unscored (no judge)" in md and "! = some results carry integrity flags" in md
    quiet = BaselineTable(rows, tasks).render("md", quiet=True)  # -q: the table alone
    assert quiet.splitlines() == [line for line in md.splitlines() if line.startswith("|")]


def test_floor_labels_sit_under_the_axis_not_over_the_bars():
    """The floor's labels were drawn at the floor's height in the middle of each column, on top of the bars
    and whiskers of every stack; they now extend the column's tick label, and no text is drawn in the plot area."""
    from matplotlib.figure import Figure

    from agenticvbench.report.plots import _draw_floor

    floor = BaselineTable(_baseline_results(), dict(TASKS)).floor()
    ax = Figure().add_subplot()
    cols = [*TASKS, "macro", "micro"]
    ticks = _draw_floor(ax, cols, floor)
    assert not ax.texts and len(ax.collections) == len(
        cols
    )  # one dotted line per column, no label in the plot
    seq = ticks[cols.index("sequencing")]
    assert seq.startswith("sequencing\nfloor 0.10\n") and ticks[cols.index("macro")].startswith(
        "macro\nfloor "
    )
    assert _draw_floor(ax, cols, None) == cols
