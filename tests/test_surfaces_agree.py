"""Surfaces agree: the same runs print the same numbers wherever they are shown.

`avb report` (Markdown and JSON), `avb leaderboard`, `leaderboard_from_runs`, `avb view`'s overview (served and
bundled), `avb compare`, `avb view --compare`, `avb power` and `load_comparison` each render numbers the analysis
computed once, with one set of settings. Before these tests the viewer bootstrapped with 1000 resamples where the
others used 2000, compared its two runs in report order instead of the order given, and did not cluster; nothing
said two surfaces must agree, so each drifted on its own.

The runs are scored on a generated 100-task dataset laid out like the real one (repair cells sharing 6 sources,
assembly stories sharing 9 films), so that clustering changes the intervals: a surface that forgot to cluster, or
clustered by another key, prints other numbers and fails here.
"""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

import numpy as np
import pytest

from agenticvbench.cli.main import main
from agenticvbench.demo.build import write_parquet
from agenticvbench.report import build_report, leaderboard_from_runs, load_comparison
from agenticvbench.report.markdown import render_markdown
from agenticvbench.view.disclosure import scrub

pytestmark = pytest.mark.slow

FAMILY_NUMBERS = ("mean", "ci_low", "ci_high")


@pytest.fixture(scope="module", params=["generated", "demo"])
def layout(request: pytest.FixtureRequest) -> tuple[Path, Path, Path]:
    """(dataset, run A, run B): the generated real layout, or the demo's partial and perfect runs scored."""
    if request.param == "demo":
        demo, runs = request.getfixturevalue("demo"), request.getfixturevalue("scored_demo_runs")
        return demo.mirror, runs["partial"], runs["perfect"]
    return request.getfixturevalue("generated_layout")


@pytest.fixture(scope="module")
def generated_layout(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(dataset parquet, run A, run B): two stacks over the real layout, bounded scores with many exact 0s and
    1s, stack A better by a source-level effect (so the clusters matter)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "analysis"))
    from real_layout import real_layout_rows, real_layout_tasks
    from result_fixtures import make_result

    from agenticvbench.analysis.clusters import source_clusters
    from agenticvbench.results.model import RESULTS_DIRNAME, write_result

    root = tmp_path_factory.mktemp("surfaces")
    dataset = write_parquet(root / "tasks.parquet", real_layout_rows())
    tasks = real_layout_tasks()
    clusters = source_clusters(tasks)
    keys = sorted(set(clusters.values()))
    rng = np.random.default_rng(7)
    source_effect = dict(zip(keys, rng.normal(0, 0.25, len(keys)), strict=True))
    runs = []
    for name, shift in (("stack-a", 0.12), ("stack-b", 0.0)):
        run = root / name
        (run / RESULTS_DIRNAME).mkdir(parents=True)
        for t in tasks:
            key = clusters[(t.family, int(t.task_id))]
            score = float(np.clip(0.45 + shift + source_effect[key] + rng.normal(0, 0.2), 0, 1))
            result = make_result(int(t.task_id), t.family, score, harness=name, model="m", path=str(run))
            result.provenance["dataset"] = {"kind": "parquet", "dataset": str(dataset), "revision": None}
            write_result(run / RESULTS_DIRNAME, result)
        runs.append(run)
    return dataset, runs[0], runs[1]


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    capsys.readouterr()
    code = main(list(argv))
    assert code == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _numbers(group: dict) -> dict[str, float | None]:
    """Every family mean and bound, macro and micro with their intervals, of one JSON row/group."""
    out: dict[str, float | None] = {}
    for fam, fh in group["families"].items():
        out |= {f"{fam}.{k}": fh[k] for k in FAMILY_NUMBERS}
    for cell in ("macro", "micro"):
        out[cell] = group[cell]
        out[f"{cell}_ci"] = tuple(group[f"{cell}_ci"])  # type: ignore[assignment]
    return out


def test_report_leaderboard_api_and_viewer_print_one_board(layout, capsys, tmp_path: Path) -> None:
    """Family means, intervals, macro, micro, signature counts and the judge calibration gate are the same in `avb report --format json`,
    `avb leaderboard --format json`, `leaderboard_from_runs`, the report's Markdown, and `avb view`'s overview
    (its model and its static bundle); the intervals are the clustered ones (the settings say so)."""
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.view import Thumbnailer, build_model, write_bundle

    dataset, a, b = layout
    common = ["--dataset", str(dataset), "--no-floor", "--format", "json"]
    report = _cli_json(capsys, "report", str(a), str(b), *common)
    board = _cli_json(capsys, "leaderboard", str(a), str(b), *common)
    api = leaderboard_from_runs([a, b], tasks=load_tasks(dataset=str(dataset)))
    model = build_model([a, b], dataset=str(dataset), local=False)

    by_report = {(g["harness"], g["model"]): _numbers(g) for g in report["groups"]}
    by_board = {(g["harness"], g["model"]): _numbers(g) for g in board["rows"]}
    by_api = {(g.harness, g.model): _numbers(json.loads(json.dumps(g.to_dict()))) for g in api.groups}
    by_view = {
        (g.harness, g.model): _numbers(json.loads(json.dumps(g.to_dict()))) for g in model.report.groups
    }
    assert by_report == by_board == by_api == by_view
    assert (
        report["bootstrap"]
        == board["bootstrap"]
        == model.report.aggregation.to_dict(dict(model.report.universe.tasks))
    )
    assert board["bootstrap"]["clustered"] is True and board["bootstrap"]["resamples"] == 2000
    # the judge calibration gate is read once per command, from the folder each JSON names, and is the same
    assert (
        report["judge_calibration"]
        == board["judge_calibration"]
        == api.aggregation.calibration.to_dict()
        == model.report.aggregation.calibration.to_dict()
    )
    assert [g["signatures"] for g in report["groups"]] == [g["signatures"] for g in board["rows"]]

    # what a person reads: the viewer's board is the leaderboard's table, cell for cell, with its caption
    headers, rows = api.display_rows()
    assert headers[:3] == ["#", "harness", "model"]
    bundle = tmp_path / "bundle"
    write_bundle(model, bundle, Thumbnailer(tmp_path / "cache", progress=False), media="none")
    page = unescape((bundle / "index.html").read_text(encoding="utf-8"))
    for row in rows:
        for cell in row:
            for part in cell.split(" "):
                assert part in page, part
    assert (
        scrub(api.caption, model.path_roots()) in page
    )  # the bundle's one pass removes this machine's paths
    assert model.report.board.caption == api.caption
    md = render_markdown(build_report(load_comparison([a, b]), tasks=load_tasks(dataset=str(dataset))))
    assert api.markdown_table() in md


def test_compare_view_compare_and_power_agree(layout, capsys) -> None:
    """`avb compare A B` and `avb view --compare A B` print the same rows (A - B in the order given, the same
    clusters, intervals, p-values and MDD); `avb power A B` plans the MDD `avb compare` prints."""
    from agenticvbench.cli.view import comparisons
    from agenticvbench.view import build_model

    dataset, a, b = layout
    estimates = []
    for first, second in ((a, b), (b, a)):
        shown = _cli_json(
            capsys, "compare", str(first), str(second), "--dataset", str(dataset), "--format", "json"
        )
        model = build_model([first, second], dataset=str(dataset), local=False, resamples=0)
        viewed = json.loads(comparisons(model)[0].render("json"))
        assert viewed["rows"] == shown["rows"]
        assert viewed["clustering"] == shown["clustering"]
        assert "cluster(s)" in shown["clustering"]
        macro = next(r for r in shown["rows"] if r["cell"] == "macro")
        estimates.append(macro["stat"]["estimate"])
        assert macro["stat"]["estimate"] == pytest.approx(macro["mean_a"] - macro["mean_b"], abs=1e-12)
    assert estimates[0] == pytest.approx(-estimates[1]) and estimates[0] != 0  # A - B in the order given

    shown = _cli_json(capsys, "compare", str(a), str(b), "--dataset", str(dataset), "--format", "json")
    macro = next(r for r in shown["rows"] if r["cell"] == "macro")
    plan = _cli_json(
        capsys, "power", str(a), str(b), "--dataset", str(dataset), "--format", "json", "--reps", "1"
    )
    n = macro["stat"]["n_tasks"]
    assert plan["rows"][0]["mdd_points"][str(n)] == pytest.approx(100 * macro["stat"]["mdd"], rel=1e-9)
