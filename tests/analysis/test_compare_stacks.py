"""`compare_runs` and `avb compare`: properties of the paired comparison, refusals, and the CLI."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from agenticvbench.analysis.compare import compare_runs, source_clusters
from agenticvbench.cli.main import main
from agenticvbench.errors import SubmissionError
from agenticvbench.results.model import write_result

pytestmark = pytest.mark.slow  # every test here scores the demo or builds an environment

FAMS = {
    1: "recap",
    2: "recap",
    3: "recap",
    37: "sequencing",
    38: "sequencing",
    65: "repair",
    66: "repair",
    83: "assembly",
    84: "assembly",
    85: "assembly",
}


def _stack(mk, scores: dict[int, float], *, harness: str = "h", model: str = "m", rep: int = 1, **kw):
    return [
        mk(t, FAMS[t], s, harness=harness, model=model, rep=rep, path=f"/runs/{harness}-{model}-{rep}", **kw)
        for t, s in scores.items()
    ]


def _scores(seed: int) -> dict[int, float]:
    rng = np.random.default_rng(seed)
    return {t: float(x) for t, x in zip(FAMS, rng.uniform(0, 1, len(FAMS)), strict=True)}


def test_a_stack_against_itself_is_zero_with_zero_width(mk):
    """A run compared with itself: every difference is 0, every interval [0, 0], p = 1, all tied."""
    a = _stack(mk, _scores(1))
    c = compare_runs(a, _stack(mk, _scores(1), harness="h2"))
    for row in c.rows:
        assert row.stat.estimate == 0 and row.stat.ci_low == 0 and row.stat.ci_high == 0
        assert (
            row.stat.p_value == 1.0
            and row.won == row.lost == 0
            and row.verdict == "no detectable difference (interval has zero width)"
        )


def test_swapping_a_and_b_flips_the_sign(mk):
    """compare(B, A) is compare(A, B) mirrored: estimates and intervals negate, p-values stay, W and L swap."""
    a, b = _stack(mk, _scores(1)), _stack(mk, _scores(2), harness="h2")
    ab, ba = compare_runs(a, b), compare_runs(b, a)
    for x, y in zip(ab.rows, ba.rows, strict=True):
        assert x.stat.estimate == pytest.approx(-y.stat.estimate)
        assert (x.stat.ci_low, x.stat.ci_high) == pytest.approx((-y.stat.ci_high, -y.stat.ci_low))
        assert x.stat.p_value == pytest.approx(y.stat.p_value) and (x.won, x.lost) == (y.lost, y.won)


def test_adding_a_constant_to_b_moves_the_difference_by_it(mk):
    """B + 0.1 on every task: A - B drops by exactly 0.1 in every cell, and the width does not change."""
    base = _scores(2)
    a = _stack(mk, _scores(1))
    c0 = compare_runs(a, _stack(mk, base, harness="h2"))
    c1 = compare_runs(a, _stack(mk, {t: s + 0.1 for t, s in base.items()}, harness="h2"))
    for x, y in zip(c0.rows, c1.rows, strict=True):
        assert y.stat.estimate == pytest.approx(x.stat.estimate - 0.1)
        assert y.stat.ci_high - y.stat.ci_low == pytest.approx(x.stat.ci_high - x.stat.ci_low)


def test_reps_are_averaged_within_each_task_before_pairing(mk):
    """A has two reps (0.2 and 0.6 on every task, so 0.4 per task) and B one rep at 0.1: A - B = 0.3 on every
    task; macro and micro both 0.3, and the caption counts the runs."""
    a = _stack(mk, dict.fromkeys(FAMS, 0.2)) + _stack(mk, dict.fromkeys(FAMS, 0.6), rep=2)
    c = compare_runs(a, _stack(mk, dict.fromkeys(FAMS, 0.1), harness="h2"))
    assert {r.cell: round(r.stat.estimate, 12) for r in c.rows} == dict.fromkeys(
        ["recap", "sequencing", "repair", "assembly", "macro", "micro"], 0.3
    )
    assert "A = h/m (2 run(s))" in c.caption and "10 task(s)" in c.caption


def test_macro_weighs_families_and_micro_weighs_tasks(mk):
    """A - B is 0.3 on the 3 recap tasks and 0 elsewhere: macro = 0.3 / 4 = 0.075, micro = 0.9 / 10 = 0.09."""
    a = _stack(mk, {t: (0.5 if FAMS[t] == "recap" else 0.2) for t in FAMS})
    b = _stack(mk, dict.fromkeys(FAMS, 0.2), harness="h2")
    rows = {r.cell: r for r in compare_runs(a, b).rows}
    assert rows["macro"].stat.estimate == pytest.approx(0.075)
    assert rows["micro"].stat.estimate == pytest.approx(0.09)


def test_only_shared_tasks_count(mk):
    """Tasks only one stack has are left out and counted in the caption."""
    a = _stack(mk, {1: 0.5, 2: 0.5, 37: 0.5})
    b = _stack(mk, {1: 0.1, 2: 0.3, 65: 0.9}, harness="h2")
    c = compare_runs(a, b)
    assert c.tasks == {"recap": [1, 2]}
    assert (c.only_a, c.only_b) == (1, 1)


def test_family_p_values_are_holm_adjusted(mk):
    """The Holm column is the step-down adjustment of the family p-values (never below the raw p)."""
    c = compare_runs(_stack(mk, _scores(3)), _stack(mk, _scores(4), harness="h2"))
    fams = [r for r in c.rows if r.cell not in ("macro", "micro")]
    assert all(r.p_holm >= r.stat.p_value for r in fams)
    smallest = min(fams, key=lambda r: r.stat.p_value)
    assert smallest.p_holm == pytest.approx(min(1.0, len(fams) * smallest.stat.p_value))


def test_refuses_stacks_without_a_shared_task(mk):
    """Nothing to pair: a one-line refusal, not a table of zeros."""
    with pytest.raises(SubmissionError, match="share no task"):
        compare_runs(_stack(mk, {1: 0.5}), _stack(mk, {2: 0.5}, harness="h2"))


def test_refuses_mixed_dataset_revisions_and_verifier_versions(mk):
    """Two dataset revisions, or two verifier versions of one family, are not one benchmark."""
    a = _stack(mk, {1: 0.5, 37: 0.5})
    other = [
        dataclasses.replace(
            r, provenance={**r.provenance, "dataset": {"dataset": "demo", "resolved_revision": "abc"}}
        )
        for r in _stack(mk, {1: 0.5, 37: 0.5}, harness="h2")
    ]
    with pytest.raises(SubmissionError, match="dataset revisions"):
        compare_runs(a, other)
    newer = [
        dataclasses.replace(r, provenance={**r.provenance, "verifier_version": "sequencing-2"})
        if r.family == "sequencing"
        else r
        for r in _stack(mk, {1: 0.5, 37: 0.5}, harness="h2")
    ]
    with pytest.raises(SubmissionError, match="sequencing results mix 2 verifier versions"):
        compare_runs(a, newer)


def test_source_clusters_group_films_and_repair_sources():
    """Tasks of one film (sequencing provenance or assembly film) share a cluster across families; repair
    cells group by their source video (cells.json: v1/s2 and v3/s2 are cut from different sources); recap tasks
    stay alone."""

    @dataclasses.dataclass
    class T:
        family: str
        task_id: int
        film: str = ""
        provenance: dict = dataclasses.field(default_factory=dict)
        cell: str = ""

    got = source_clusters(
        [
            T("sequencing", 37, provenance={"film": "Sintel"}),
            T("assembly", 83, film="Sintel"),
            T("repair", 65, cell="v1/s2"),
            T("repair", 66, cell="v3/s2"),
            T("recap", 1),
        ]
    )
    assert got == {
        ("sequencing", 37): "film:Sintel",
        ("assembly", 83): "film:Sintel",
        ("repair", 65): "repair-source:v1_source.mp4",
        ("repair", 66): "repair-source:v3_source.mp4",
        ("recap", 1): "task:recap-1",
    }


def test_clustering_merges_the_sign_flips(mk):
    """With every assembly task in one cluster, assembly has 1 cluster: no interval, never 'detectable'."""
    a, b = _stack(mk, _scores(1)), _stack(mk, _scores(2), harness="h2")
    clusters = {("assembly", t): "film:x" for t in (83, 84, 85)}
    row = next(r for r in compare_runs(a, b, clusters=clusters).rows if r.cell == "assembly")
    assert row.stat.n_clusters == 1 and row.stat.ci_low is None and row.verdict.startswith("no detectable")


def _write(tmp_path, name, results):
    out = tmp_path / name / "avb-results"
    out.mkdir(parents=True)
    for r in results:
        write_result(out, dataclasses.replace(r, run={**r.run, "path": str(tmp_path / name)}))
    return tmp_path / name


def test_cli_compares_rows_of_runs_and_writes_json(mk, tmp_path, capsys):
    """`avb compare h/m h2/m --runs ...` picks every run of each row; JSON keeps fractions and the verdict."""
    runs = [
        _write(tmp_path, "a1", _stack(mk, _scores(1))),
        _write(tmp_path, "a2", _stack(mk, _scores(5), rep=2)),
        _write(tmp_path, "b1", _stack(mk, _scores(2), harness="h2")),
    ]
    assert main(["compare", "h/m", "h2/m", "--runs", *map(str, runs), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["runs_a"]) == 2 and len(doc["runs_b"]) == 1
    macro = next(r for r in doc["rows"] if r["cell"] == "macro")
    expected = np.mean(
        [
            np.mean([(_scores(1)[t] + _scores(5)[t]) / 2 - _scores(2)[t] for t in FAMS if FAMS[t] == f])
            for f in ("recap", "sequencing", "repair", "assembly")
        ]
    )
    assert macro["stat"]["estimate"] == pytest.approx(expected) and "verdict" in macro


def test_cli_refusal_is_one_line_with_exit_3(mk, tmp_path, capsys):
    """No shared task: exit 3 and a single line on stderr."""
    a = _write(tmp_path, "a", _stack(mk, {1: 0.5}))
    b = _write(tmp_path, "b", _stack(mk, {2: 0.5}, harness="h2"))
    assert main(["compare", str(a), str(b)]) == 3
    err = capsys.readouterr().err.strip()
    assert "share no task" in err and len(err.splitlines()) == 1


def test_cli_cluster_reads_source_material_from_the_dataset(scored_demo, capsys):
    """--cluster on the demo (sequencing and assembly scored): clusters come from the tasks' films, the JSON
    says so, and there are never more clusters than tasks."""
    runs = scored_demo.runs
    assert (
        main(
            [
                "compare",
                str(runs["perfect"]),
                str(runs["partial"]),
                "--cluster",
                "--dataset",
                str(scored_demo.mirror),
                "--format",
                "json",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["clustering"].startswith("source material")
    for row in doc["rows"]:
        assert 1 <= row["stat"]["n_clusters"] <= row["stat"]["n_tasks"]
    assert {r["cell"] for r in doc["rows"]} >= {"sequencing", "assembly", "macro", "micro"}


def test_cli_clusters_by_default_from_the_results_provenance(scored_demo, capsys):
    """No --cluster and no --dataset: the demo results name their local mirror, so `avb compare` clusters by
    source material anyway (it used to treat every task as alone unless asked); --no-cluster turns it off and
    the caption says so."""
    runs = scored_demo.runs
    assert main(["compare", str(runs["perfect"]), str(runs["partial"]), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["clustering"].startswith("source material")
    assert (
        main(["compare", str(runs["perfect"]), str(runs["partial"]), "--no-cluster", "--format", "json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["clustering"] == "task (--no-cluster)"
