"""`avb view` at leaderboard size, on synthetic runs written with the package's result writer (no engine): runs in
the order given, stacks and their rep pages, compare mode over more than two runs, time, cost and Harbor outcome
badges, results scored after start-up, a bounded page cache, warnings with their defect meaning, empty outputs
and empty evidence, and hostile strings escaped on every new page."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from view_fixtures import serve

from agenticvbench.cli.main import main
from agenticvbench.cli.view import comparisons
from agenticvbench.results.model import Result, write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.view import Thumbnailer, ViewApp, build_model, write_bundle
from agenticvbench.view.defects import DEFECTS
from agenticvbench.view.server import PageCache

DOCS = Path(__file__).resolve().parents[2] / "docs"
FAMILY = {1: "recap", 2: "recap", 37: "sequencing", 38: "sequencing", 65: "repair", 83: "assembly"}
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def result(run: Path, tid: int, score: float, *, harness: str, model: str, rep: int, **kw) -> Result:
    """A result of `run` for task `tid`, as the engine writes it (`status` etc. in `kw`)."""
    status = kw.pop("status", "scored")
    scored = status == "scored"
    return Result(
        task_id=tid,
        family=FAMILY[tid],
        status=status,
        final_score=score if scored else 0.0,
        headline_score=score if scored else 0.0,
        reason=kw.pop("reason", ""),
        warnings=kw.pop("warnings", []),
        detail=kw.pop("detail", {}),
        timings={"total_s": 0.1},
        provenance={"package_version": "0.1.0", "verifier_version": "1", **kw.pop("provenance", {})},
        run={"path": str(run), "harness": harness, "model": model, "rep": rep},
        **kw,
    )


def write_run(
    root: Path,
    name: str,
    scores: dict[int, float | str],
    *,
    harness: str = "h",
    model: str = "claude-opus-4-7",
    rep: int = 1,
    meta: dict | None = None,
    extra: dict[int, dict] | None = None,
) -> Path:
    """A run folder with one result per task (a str score is a status scoring 0) and, with `meta`, a run.json."""
    run = root / name
    (run / RESULTS_DIRNAME).mkdir(parents=True)
    for tid, score in scores.items():
        kw = dict((extra or {}).get(tid, {}))
        if isinstance(score, str):
            kw["status"], score = score, 0.0
        write_result(
            run / RESULTS_DIRNAME, result(run, tid, score, harness=harness, model=model, rep=rep, **kw)
        )
    if meta is not None:
        (run / "run.json").write_text(json.dumps({"harness": harness, "model": model, "rep": rep, **meta}))
    return run


SCORES = {1: 0.5, 2: 0.25, 37: 0.75, 38: 1.0, 65: 0.4, 83: 0.6}


@pytest.fixture
def stacks(tmp_path: Path) -> list[Path]:
    """Two stacks x two reps, given in the order: zeta rep 1, alpha rep 1, zeta rep 2, alpha rep 2 (not sorted)."""
    return [
        write_run(tmp_path, f"{h}-{k}", {t: (s + 0.1 * k) % 1 for t, s in SCORES.items()}, harness=h, rep=k)
        for k in (1, 2)
        for h in ("zeta", "alpha")
    ]


def get(served, path: str) -> tuple[int, str]:
    """(status, body) of a page of the server, with its cookie."""
    import urllib.error
    import urllib.request

    req = urllib.request.Request(served.base + path, headers={"Cookie": f"avb_view={served.app.token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def app_for(runs: list[Path], tmp_path: Path, *, compare: bool = False) -> ViewApp:
    model = build_model(runs, resamples=50)
    return ViewApp(
        model=model,
        thumbs=Thumbnailer(tmp_path / "cache", progress=False),
        comparisons=comparisons(model) if compare else (),
        reload=lambda: build_model(runs, resamples=50),
        compare=comparisons if compare else None,
    )


def test_runs_keep_the_order_given(stacks, tmp_path) -> None:
    """The grid's columns, the signature table and the stacks follow the command line, not the labels' order."""
    model = build_model(stacks, resamples=50)
    assert [Path(r.ref.path).name for r in model.runs] == ["zeta-1", "alpha-1", "zeta-2", "alpha-2"]
    assert [s.harness for s in model.stacks] == ["zeta", "alpha"] and model.stacks[0].runs == [0, 2]
    gen = serve(app_for(stacks, tmp_path))
    served = next(gen)
    try:
        page = get(served, "/index.html")[1]
        grid = page[page.index('id="grid"') :]
        heads = re.findall(r'<th title="[^"]*">([^<]*)</th>', grid)
        assert [h.split("/")[0] for h in heads] == ["zeta", "alpha", "zeta", "alpha"], heads
        sig = page[page.index('id="signatures"') : page.index("</table>", page.index('id="signatures"'))]
        assert [m.split("/")[0] for m in re.findall(r"<tr><td>([^<]*)</td>", sig)] == [
            "zeta",
            "alpha",
            "zeta",
            "alpha",
        ]
        assert page.count("<header>") == 1 and "avb view avb view" not in page  # one brand in the header
    finally:
        gen.close()


def test_stack_page_shows_every_rep_and_pages_link_each_other(stacks, tmp_path) -> None:
    """`stack-<s>-<task>.html` has both reps of a stack side by side; task pages link their neighbours in the
    grid's order (previous/next task, previous/next run) and their stack page; unknown stacks are 404."""
    gen = serve(app_for(stacks, tmp_path))
    served = next(gen)
    try:
        status, page = get(served, "/stack-1-37.html")
        assert status == 200 and page.count('class="side"') == 2 and "alpha / claude-opus-4-7" in page
        assert 'href="task-1-37.html"' in page and 'href="task-3-37.html"' in page
        assert (
            'id="nav-prev-task" href="stack-1-2.html"' in page
            and 'id="nav-next-task" href="stack-1-38.html"' in page
        )
        task = get(served, "/task-1-37.html")[1]
        for link in (
            'id="nav-prev-task" href="task-1-2.html"',
            'id="nav-next-task" href="task-1-38.html"',
            'id="nav-prev-run" href="task-0-37.html"',
            'id="nav-next-run" href="task-2-37.html"',
            'id="nav-stack" href="stack-1-37.html"',
        ):
            assert link in task, link
        first = get(served, "/task-0-1.html")[1]
        assert (
            '<span class="off" id="nav-prev-task">' in first
            and '<span class="off" id="nav-prev-run">' in first
        )
        assert 'data-pattern="task-0-{}.html"' in first
        assert get(served, "/stack-2-37.html")[0] == 404 and get(served, "/stack-0-999.html")[0] == 404
        overview = get(served, "/index.html")[1]
        assert overview.count('class="stack-link"') == 2 * len(SCORES)
    finally:
        gen.close()


def test_single_rep_stacks_have_no_stack_page(tmp_path) -> None:
    run = write_run(tmp_path, "one", SCORES)
    gen = serve(app_for([run], tmp_path))
    served = next(gen)
    try:
        assert get(served, "/stack-0-37.html")[0] == 404
        assert "nav-stack" not in get(served, "/task-0-37.html")[1]
        assert "stack-link" not in get(served, "/index.html")[1]
    finally:
        gen.close()


def test_compare_mode_takes_more_than_two_runs(tmp_path, capsys) -> None:
    """`--compare A B C`: one `avb compare A X` table per other run (the numbers `avb compare` prints), and per
    task every run side by side with A - X on the values the table pairs: a malformed cell counts 0 there too."""
    a = write_run(tmp_path, "a", SCORES, harness="ha")
    b = write_run(tmp_path, "b", {**SCORES, 37: "malformed"}, harness="hb")
    c = write_run(tmp_path, "c", {t: s / 2 for t, s in SCORES.items()}, harness="hc")
    out = tmp_path / "bundle"
    assert main(["view", "--compare", str(a), str(b), str(c), "--bundle", str(out), "--media", "none"]) == 0
    index = (out / "index.html").read_text()
    assert index.count('class="comparison"') == 2 and index.count('class="compare-link"') == len(SCORES)
    for other in (b, c):
        capsys.readouterr()
        assert main(["compare", str(a), str(other)]) == 0
        cli = capsys.readouterr().out
        macro = next(line for line in cli.splitlines() if "| macro" in line)
        diff = [x.strip() for x in macro.split("|")][5]  # A - B in points
        assert diff in index, (diff, macro)
    page = (out / "compare-37.html").read_text()
    assert page.count('class="side"') == 3 and "A vs B vs C" in page
    rows = re.findall(r'<td class="diff">(.*?)</td>', page)
    assert rows[0] == "-" and "+0.7500" in rows[1] and "+0.3750" in rows[2], rows
    assert "a malformed cell counts 0" in page and "not defined" not in page


def test_badges_time_cost_and_harbor_outcome(tmp_path) -> None:
    """run.json's usage gives the agent's time and the trial's cost (priced as `avb cost` prices it); its
    Harbor outcomes a timeout or an infrastructure failure badge; a run without run.json has none."""
    usage = {
        "37": {
            "agent": "h",
            "model": "claude-opus-4-7",
            "tokens": {"input_tokens": 1_000_000, "output_tokens": 100_000},
            "agent_started": "2026-01-01T00:00:00Z",
            "agent_finished": "2026-01-01T00:12:05Z",
        }
    }
    outcomes = {
        "38": {"outcome": "agent_timeout", "reason": "AgentTimeoutError: after 3600 s"},
        "65": {"outcome": "infra_failure", "reason": "HealthcheckError"},
        "1": {"outcome": "scored", "reason": ""},
    }
    run = write_run(tmp_path, "r", SCORES, meta={"usage": usage, "harbor": {"outcomes": outcomes}})
    plain = write_run(tmp_path, "p", SCORES, harness="other")
    model = build_model([run, plain], resamples=50)
    c = model.cell(0, 37)
    assert c.agent_s == 725 and c.cost_usd == pytest.approx(7.5)
    assert model.cell(0, 38).outcome == "agent_timeout" and model.cell(0, 65).outcome_badge == "infra failure"
    assert model.cell(0, 1).outcome == "" and model.cell(1, 37).agent_s is None
    gen = serve(app_for([run, plain], tmp_path))
    served = next(gen)
    try:
        index = get(served, "/index.html")[1]
        assert "⏱ 12m05s" in index and "$7.50" in index
        assert ">timeout</span>" in index and ">infra failure</span>" in index
        assert 'data-outcome="agent_timeout"' in index
        page = get(served, "/task-0-38.html")[1]
        assert ">timeout</span>" in page and "Harbor: AgentTimeoutError: after 3600 s" in page
        assert "⏱" not in get(served, "/task-1-37.html")[1].split("<main>")[1]
    finally:
        gen.close()


def test_results_scored_after_start_up_appear_without_a_restart(tmp_path) -> None:
    """A result rewritten (or added) after the server started shows on the next request; nothing is read again
    while the files stay as they are."""
    run = write_run(tmp_path, "r", {t: s for t, s in SCORES.items() if t != 83})
    app = app_for([run], tmp_path)
    gen = serve(app)
    served = next(gen)
    try:
        assert "0.75" in get(served, "/task-0-37.html")[1]
        first = app.model
        get(served, "/index.html")
        assert app.model is first  # unchanged files: the same model
        write_result(
            run / RESULTS_DIRNAME, result(run, 37, 0.125, harness="h", model="claude-opus-4-7", rep=1)
        )
        write_result(
            run / RESULTS_DIRNAME, result(run, 83, 0.875, harness="h", model="claude-opus-4-7", rep=1)
        )
        index = get(served, "/index.html")[1]
        assert app.model is not first
        assert ">0.12" in index or ">0.13" in index
        assert 'href="task-0-83.html"' in index and "0.88" in index
        assert "0.1250" in get(served, "/task-0-37.html")[1]
    finally:
        gen.close()


def test_page_cache_is_bounded() -> None:
    """The server keeps the last pages only; a dropped page is rendered again when asked for."""
    cache = PageCache(limit=3)
    calls: list[str] = []
    for key in "abcde":
        cache.get(key, lambda k=key: calls.append(k) or k.encode())
    assert len(cache) == 3
    cache.get("e", lambda: calls.append("e!") or b"")
    cache.get("a", lambda: calls.append("a!") or b"a")
    assert calls == ["a", "b", "c", "d", "e", "a!"]


def test_warnings_carry_their_defect_meaning(tmp_path) -> None:
    """A warning's defect id links the defect page, with its one-line meaning; the page lists every id."""
    run = write_run(
        tmp_path, "r", SCORES, extra={65: {"warnings": ["D-R6: fps 25, 83% of each chunk checked"]}}
    )
    gen = serve(app_for([run], tmp_path))
    served = next(gen)
    try:
        page = get(served, "/task-0-65.html")[1]
        assert '<a class="defect" href="defects.html#D-R6">D-R6</a>' in page
        assert DEFECTS["D-R6"].split(":")[0][:30] in page and "fps 25, 83% of each chunk checked" in page
        status, defects = get(served, "/defects.html")
        assert status == 200 and all(f'<tr id="{code}">' in defects for code in DEFECTS)
        assert "docs/upstream-defects.md" in defects
    finally:
        gen.close()


def test_every_documented_defect_id_has_a_meaning() -> None:
    documented = set(re.findall(r"^\| (D-[SRC][0-9]+) \|", (DOCS / "upstream-defects.md").read_text(), re.M))
    assert documented and documented == set(DEFECTS)


def test_an_empty_output_gets_no_player_and_empty_evidence_no_heading(tmp_path) -> None:
    """A 0-byte final.mp4 (scoring hashed it) is named as empty, with no player that would ask for a range that
    cannot exist; a recap result with nothing to draw has no Evidence heading."""
    run = write_run(
        tmp_path,
        "r",
        SCORES,
        extra={1: {"provenance": {"input_hashes": {"final.mp4": hashlib.sha256(b"").hexdigest()}}}},
    )
    (run / "1").mkdir()
    (run / "1" / "final.mp4").write_bytes(b"")
    gen = serve(app_for([run], tmp_path))
    served = next(gen)
    try:
        page = get(served, "/task-0-1.html")[1]
        assert "final.mp4 is empty (0 bytes)" in page and "<video" not in page
        assert "<h3>Evidence</h3>" not in page
    finally:
        gen.close()


def test_media_options_without_bundle_say_they_are_ignored(tmp_path, monkeypatch, capsys) -> None:
    import agenticvbench.cli.common as common

    run = write_run(tmp_path, "r", SCORES)
    monkeypatch.setattr(common, "serve_until_interrupted", lambda httpd, msg: httpd.server_close() or 0)
    assert main(["view", str(run), "--media", "full", "--show-answers", "--no-open"]) == 0
    err = capsys.readouterr().err
    assert "--media full, --show-answers only apply with --bundle DIR; ignored" in err
    assert main(["view", str(run), "--no-open"]) == 0
    assert "ignored" not in capsys.readouterr().err


def test_hostile_strings_stay_text_on_every_new_page(tmp_path) -> None:
    """Harness and model names, a warning and a Harbor outcome reason carrying markup are escaped on the overview,
    the stack, compare and defect pages (server and bundle)."""
    meta = {"harbor": {"outcomes": {"37": {"outcome": "agent_error", "reason": HOSTILE}}}}
    runs = [
        write_run(
            tmp_path,
            f"r{k}",
            SCORES,
            harness=HOSTILE,
            model=HOSTILE,
            rep=k,
            meta=meta,
            extra={37: {"warnings": [f"D-S2: {HOSTILE}"], "reason": HOSTILE}},
        )
        for k in (1, 2)
    ]
    out = tmp_path / "bundle"
    model = build_model(runs, resamples=50, local=False)
    write_bundle(
        model, out, Thumbnailer(tmp_path / "c", progress=False), media="none", comparisons=comparisons(model)
    )
    pages = sorted(out.glob("*.html"))
    assert {"index.html", "stack-0-37.html", "compare-37.html", "defects.html"} <= {p.name for p in pages}
    for p in pages:
        text = p.read_text()
        assert "<script>alert" not in text and "<img src=x" not in text, p.name
    assert "&lt;script&gt;alert(1)" in (out / "stack-0-37.html").read_text()
    assert "&lt;script&gt;alert(1)" in (out / "index.html").read_text()


def test_a_task_section_joins_every_task_page(tmp_path, monkeypatch) -> None:
    """`pages.TASK_SECTIONS` is where new material (a trajectory) joins the task pages: its template gets what its
    builder returned, escaped like the rest; a builder returning None leaves the section out."""
    import jinja2

    from agenticvbench.view import pages

    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "extra.html").write_text('<section class="extra">{{ s.text }}</section>')
    env = pages.environment()
    monkeypatch.setattr(env, "loader", jinja2.ChoiceLoader([env.loader, jinja2.FileSystemLoader(templates)]))
    env.cache.clear()
    section = pages.TaskSection(
        "extra",
        "extra.html",
        lambda model, site, cell, side: {"text": HOSTILE} if cell.task_id == 37 else None,
    )
    monkeypatch.setattr(pages, "TASK_SECTIONS", [section])
    run = write_run(tmp_path, "r", SCORES)
    model = build_model([run], resamples=50)
    thumbs = Thumbnailer(tmp_path / "c", progress=False)
    page = pages.task_page(model, pages.Site(), thumbs, 0, 37)
    assert '<section class="extra">&lt;script&gt;' in page
    assert 'class="extra"' not in pages.task_page(model, pages.Site(), thumbs, 0, 38)
    env.cache.clear()
