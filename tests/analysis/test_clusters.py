"""Clusters by default: `resolve_clustering` finds the tasks' source material whenever it is known, the
clustered leaderboard bootstrap resamples whole sources within families, and every table says which was used."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agenticvbench.analysis.aggregate import bootstrap
from agenticvbench.analysis.clusters import Clustering, resolve_clustering, source_clusters, stretch
from agenticvbench.analysis.compare import compare_runs
from agenticvbench.report.leaderboard import build_leaderboard


@dataclasses.dataclass
class FakeTask:
    family: str
    task_id: int
    film: str = ""
    provenance: dict = dataclasses.field(default_factory=dict)
    cell: str = ""
    profile: dict = dataclasses.field(default_factory=dict)
    verifier_reference_urls: list[str] | None = None


TASKS = [
    *(FakeTask("recap", t) for t in (1, 2, 3)),
    *(FakeTask("sequencing", t, provenance={"film": f"F{(t - 37) // 2}"}) for t in range(37, 43)),
]
SCORES = {1: 0.2, 2: 0.5, 3: 0.9, 37: 0.1, 38: 0.3, 39: 0.8, 40: 0.9, 41: 0.4, 42: 0.2}


def _results(mk, harness="h", shift=0.0):
    fam = {t.task_id: t.family for t in TASKS}
    return [
        mk(t, fam[t], min(1.0, s + shift), harness=harness, rep=rep, path=f"/runs/{harness}{rep}")
        for rep in (1, 2)
        for t, s in SCORES.items()
    ]


def test_resolution_order_and_reasons(mk):
    """Tasks given -> their clusters; --no-cluster -> none, said so; no dataset anywhere -> none, with the way
    to get them."""
    res = _results(mk)
    assert resolve_clustering(res, tasks=TASKS).clusters[("sequencing", 37)] == "film:F0"
    off = resolve_clustering(res, tasks=TASKS, enabled=False)
    assert off.clusters is None and off.label([("recap", 1)]) == "task (--no-cluster)"
    unknown = resolve_clustering(res)  # the synthetic results name a Hub-like dataset, not a local one
    assert unknown.clusters is None and "give --dataset" in unknown.reason


def test_the_label_says_when_clustering_changed_nothing():
    """Every task alone in its cluster: the label says clustering changed nothing."""
    one_each = Clustering({("recap", 1): "a", ("recap", 2): "b"}, "")
    assert "changed nothing" in one_each.label([("recap", 1), ("recap", 2)])
    shared = Clustering({("recap", 1): "a", ("recap", 2): "a"}, "")
    assert "1 cluster(s) for 2 task(s)" in shared.label([("recap", 1), ("recap", 2)])


def test_compare_caption_names_the_clusters(mk):
    """compare_runs with the tasks' clusters: 3 films for 6 sequencing tasks, and the caption counts them."""
    c = compare_runs(
        _results(mk), _results(mk, "h2", 0.05), clusters=resolve_clustering([], tasks=TASKS).clusters
    )
    seq = next(r for r in c.rows if r.cell == "sequencing")
    assert seq.stat.n_clusters == 3 and "6 cluster(s) for 9 task(s)" in c.caption


def test_leaderboard_bootstrap_clusters_when_tasks_are_known(mk):
    """build_leaderboard with the dataset's tasks resamples sources within families (caption says so); with
    cluster=False it resamples tasks and says why; its intervals differ from the unclustered ones."""
    res = _results(mk)
    clustered = build_leaderboard(res, tasks=TASKS, resamples=400)
    plain = build_leaderboard(res, tasks=TASKS, resamples=400, cluster=False)
    assert "source material (film / repair source), 6 cluster(s) for 9 task(s)" in clustered.caption
    assert "not clustered: --no-cluster" in plain.caption
    a, b = clustered.groups[0].families["sequencing"], plain.groups[0].families["sequencing"]
    assert (a.ci_low, a.ci_high) != (b.ci_low, b.ci_high)
    assert "source clusters" in a.aggregation


def test_leaderboard_says_when_clustering_changed_nothing(mk):
    """Known sources, but every task its own within its family: the ordinary bootstrap, and the caption says
    clustering changed nothing."""
    tasks = [FakeTask(t.family, t.task_id, provenance={"film": f"own{t.task_id}"}) for t in TASKS]
    board = build_leaderboard(_results(mk), tasks=tasks, resamples=100)
    assert "clustering changed nothing" in board.caption
    same = build_leaderboard(_results(mk), tasks=tasks, resamples=100, cluster=False)
    assert board.groups[0].macro_ci == same.groups[0].macro_ci


def test_cluster_bootstrap_draws_whole_clusters():
    """Two clusters in one family, one holding tasks scoring 1 and the other 0 (one run): every replicate, before
    the stretch, is 0, 1/2 or 1 (a cluster is never split), so after it there are 3 values symmetric about the
    mean 0.5; the stretch makes the percentile interval the CR2 / Bell-McCaffrey t interval: 0.5 +- t_1 x 0.5
    (SE 0.5: two clusters of means 1 and 0; df 1 for 2 equal clusters)."""
    scores = {"sequencing": np.array([[1.0, 1.0, 0.0, 0.0]])}
    boot = bootstrap(scores, resamples=200, seed=1, clusters={"sequencing": ["a", "a", "b", "b"]}, level=0.95)
    values = {round(float(x), 9) for x in boot["sequencing"]}
    assert len(values) == 3 and {round(1 - v, 9) for v in values} == values
    lo, hi = np.quantile(boot["sequencing"], [0.025, 0.975])
    assert (lo, hi) == pytest.approx((0.5 - 12.706204736174707 * 0.5, 0.5 + 12.706204736174707 * 0.5))
    assert stretch(0.5, 1.0, 12.706204736174707 * 0.5, 0.95) == pytest.approx(1.0)


def test_a_result_without_provenance_does_not_hide_the_dataset(mk, tmp_path):
    """A repair `error` whose verifier crashed before recording provenance used to make the results name "no one
    dataset", so `avb compare` on the demo did not cluster; it no longer vetoes. An unreadable dataset is named."""
    named = [
        dataclasses.replace(
            mk(t, "recap", 0.5), provenance={"dataset": {"dataset": str(tmp_path), "kind": "mirror"}}
        )
        for t in (1, 2)
    ]
    crashed = dataclasses.replace(mk(65, "repair", 0.0, status="error"), provenance={})
    from agenticvbench.analysis.clusters import local_dataset

    assert local_dataset([*named, crashed]) == str(tmp_path)
    found = resolve_clustering([*named, crashed])
    assert found.clusters is None and "unreadable" in found.reason


def test_the_report_and_the_leaderboard_draw_the_same_intervals(mk):
    """`avb report` aggregates with the leaderboard's clustered bootstrap, so one row's intervals agree."""
    from agenticvbench.report.summary import build_report

    res = _results(mk)
    report = build_report(res, tasks=TASKS, resamples=300)
    board = build_leaderboard(res, tasks=TASKS, resamples=300)
    mine, theirs = report.groups[0].families["sequencing"], board.groups[0].families["sequencing"]
    assert (mine.ci_low, mine.ci_high) == (theirs.ci_low, theirs.ci_high)
    assert "source clusters" in mine.aggregation


def test_a_leaderboard_interval_past_zero_one_is_marked(mk):
    """Two films of two sequencing tasks each, one film solved and one not: with 2 clusters the stretch (x 12.7)
    carries the interval far past [0, 1]. It is shown as computed, marked with § (not ‡, the 'mixed' mark), and
    the caption says what § means."""
    tasks = [FakeTask("sequencing", t, provenance={"film": "A" if t < 39 else "B"}) for t in (37, 38, 39, 40)]
    res = [mk(t, "sequencing", 1.0 if t < 39 else 0.0, path="/runs/x") for t in (37, 38, 39, 40)]
    board = build_leaderboard(res, tasks=tasks, resamples=200)
    fam = board.groups[0].families["sequencing"]
    assert fam.ci_low < 0 and fam.ci_high > 1
    text = board.render("md")
    assert (
        "§" in text.split("\n\n")[0]
        and "§ = the interval runs past the possible range [0, 1]" in board.caption
    )


def _per_family(clusters: dict[tuple[str, int], str]) -> dict[str, dict[str, list[int]]]:
    """family -> cluster key -> its task ids."""
    out: dict[str, dict[str, list[int]]] = {}
    for (fam, tid), key in sorted(clusters.items()):
        out.setdefault(fam, {}).setdefault(key, []).append(tid)
    return out


def test_the_demo_repair_tasks_cluster_by_their_source_video(demo):
    """The demo's repair tasks 65-67 are cut from two sources (66 and 67 both from demo2_source.mp4), but their
    cells `demo/<subtask>` all differ, so clustering by the subtask made three clusters. By the source: two. The
    demo's sequencing provenance also records a `source` that is the generator, not a film: it must not merge."""
    from agenticvbench.dataset.loader import load_tasks

    tasks = load_tasks(dataset=demo.mirror)
    fams = _per_family(source_clusters(tasks))
    assert fams["repair"] == {
        "repair-source:demo1_source.mp4": [65],
        "repair-source:demo2_source.mp4": [66, 67],
    }
    films = {t.provenance["film"] for t in tasks if t.family == "sequencing"}
    assert len(fams["sequencing"]) == len(films) == sum(1 for t in tasks if t.family == "sequencing")
    assert all(len(ids) == 1 for ids in fams["recap"].values())


def test_the_real_layout_has_the_real_number_of_sources_per_family():
    """On a 100-task dataset laid out like the real one: recap 36 (no recap task names a film), sequencing 27,
    repair 6, assembly 9 clusters. The subtask rule gave 4 repair clusters (s1-s4), each mixing cells of
    different source videos; now every repair cluster is the cells of one source."""
    from real_layout import EXPECTED_CLUSTERS, real_layout_tasks

    tasks = real_layout_tasks()
    assert [t.task_id for t in tasks] == list(range(1, 101))
    fams = _per_family(source_clusters(tasks))
    assert {f: len(keys) for f, keys in fams.items()} == EXPECTED_CLUSTERS
    cell = {t.task_id: t.cell for t in tasks if t.family == "repair"}
    for key, ids in fams["repair"].items():
        groups = {cell[t].split("/")[0] for t in ids}
        assert len(groups) == 1 and key == f"repair-source:{groups.pop()}_source.mp4"
    assert fams["sequencing"]["film:Sequencing Film 27"] == [63, 64]


def test_a_repair_source_is_read_from_what_the_task_records_first():
    """Precedence: the verifier-only file the task names, else the profile's `source_file`, else the cells.json
    `source_path`, else the `vN` of a `vN/sM` cell; a task recording none of them stays alone. Under the subtask
    rule tasks 1 and 2 (both `s1`) merged and 3, 4 and 5 did not."""
    tasks = [
        FakeTask(
            "repair", 1, cell="v1/s1", verifier_reference_urls=["https://h/r/alpha_source.mp4?download=1"]
        ),
        FakeTask("repair", 2, cell="v2/s1", verifier_reference_urls=["repair/sources/beta_source.mp4"]),
        FakeTask("repair", 3, cell="v3/s2", profile={"source_file": "alpha_source.mp4"}),
        FakeTask("repair", 4, cell="v1/s3"),  # shipped cell: cells.json says sources/v1_source.mp4
        FakeTask("repair", 5, cell="v9/s2"),
        FakeTask("repair", 6, cell="v9/s3"),
        FakeTask("repair", 7, cell="demo/pink_noise"),
    ]
    assert source_clusters(tasks) == {
        ("repair", 1): "repair-source:alpha_source.mp4",
        ("repair", 2): "repair-source:beta_source.mp4",
        ("repair", 3): "repair-source:alpha_source.mp4",
        ("repair", 4): "repair-source:v1_source.mp4",
        ("repair", 5): "repair-group:v9",
        ("repair", 6): "repair-group:v9",
        ("repair", 7): "task:repair-7",
    }


def test_films_merge_across_families_but_never_with_a_repair_source():
    """A film used by a sequencing and an assembly task is the same material: one key. A repair source whose file
    has a film's name stays apart (its key is `repair-source:`), and a recap task naming no film stays alone."""
    tasks = [
        FakeTask("sequencing", 37, provenance={"film": "Harbour", "source": "generator"}),
        FakeTask("assembly", 83, film=" Harbour "),
        FakeTask("repair", 65, cell="v1/s1", verifier_reference_urls=["sources/Harbour"]),
        FakeTask("recap", 1),
    ]
    assert source_clusters(tasks) == {
        ("sequencing", 37): "film:Harbour",
        ("assembly", 83): "film:Harbour",
        ("repair", 65): "repair-source:Harbour",
        ("recap", 1): "task:recap-1",
    }
