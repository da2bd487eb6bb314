"""The agent's trajectory in `avb view` (`view/timeline.py`): a timeline of the steps scoring audited on each task
page, flags linked to their steps, the audit summary on the overview, and a bundle that keeps a flagged step's
tool, flag and triggering path while its result (which can quote answers) is withheld.

The runs are copies of the demo's partial run (sequencing tasks, not solved) and perfect run (task 37 solved
exactly), with logs written by the trajectory tests' generators (`tests/trajectory/traj_logs.py`), scored by
`avb verify` so that the results record the audit."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from markupsafe import escape
from view_fixtures import LONG, PLANTED

from agenticvbench.scoring.engine import verify_run
from agenticvbench.view import Thumbnailer, build_model, write_bundle
from agenticvbench.view.disclosure import LOCAL, published
from agenticvbench.view.pages import Site, overview, task_page
from agenticvbench.view.timeline import MAX_ROWS
from tests.trajectory import traj_logs as logs


@pytest.fixture(scope="module")
def model(demo, traj_runs):
    """A local view model over both runs (partial first)."""
    return build_model([traj_runs["partial"], traj_runs["perfect"]], dataset=demo.mirror, resamples=0)


def _thumbs(tmp: Path) -> Thumbnailer:
    return Thumbnailer(tmp / "thumbs", progress=False)


def _page(model, run: int, task: int, site: Site | None = None) -> str:
    return task_page(model, site or Site(), _thumbs(Path(model.runs[0].ref.path).parent), run, task)


def _section(page: str) -> str:
    return page[page.index('<section class="trajectory"') :].split("</section>", 1)[0]


def _row(section: str, anchor: str) -> str:
    return section[section.index(f'<tr id="{anchor}"') :].split("</tr>", 1)[0]


def _flagged_step(model, run: int, task: int) -> int:
    """The step index the result's warning names (Claude Code's steps are messages and calls, not calls)."""
    [warning] = [w for w in model.cell(run, task).result.warnings if w.startswith("INTEGRITY answer_access")]
    return int(re.search(r" step ([0-9]+) ", warning).group(1))


def test_task_page_draws_each_step(model) -> None:
    """The steps scoring audited, each with its number, time and delta, role, tool, folded call and result,
    tokens and media marker; the flagged step highlighted and linked from the flag list and the page's flag."""
    page = _page(model, 0, 37)
    sec = _section(page)
    assert sec.count('<tr id="step-') == 7  # the prompt and six calls
    probe, frames, image, flagged, cut = (_row(sec, f"step-{i}") for i in range(1, 6))
    assert (
        "mark-probe" in probe and "mark-frames" in frames and "mark-image" in image and "mark-ffmpeg" in cut
    )
    assert "<td>Bash" in probe and '<details class="args"><summary>command=ffprobe' in probe
    assert '<details class="result">' in probe and ">110<" in probe  # 100 prompt + 10 completion tokens
    assert "1s" in probe and "+1.0s" in probe and 'title="2026-01-01T00:00:01Z"' in probe
    assert (
        'class="step role-agent flagged"' in flagged and "⚑ answer_access" in flagged and PLANTED in flagged
    )
    assert "flagged" not in probe.split(">", 1)[0]
    assert sec.count('href="#step-4"') == 2  # the flag list, the step's own number
    assert '<a class="flag" href="#step-4" title="its first flagged step">⚑ answer_access</a>' in page
    assert "audited: 1 finding(s)" in sec


def test_a_failed_call_is_marked_and_agent_text_is_escaped(model) -> None:
    """The log is hostile: markup and a bidi override in a call are shown escaped (no tag, no live override);
    the page's only script is the static file. A call the log marks failed carries the error chip."""
    page = _page(model, 0, 37)
    assert "<script>alert" not in page and "\u202e" not in page and "&lt;script&gt;alert" in page
    assert "\\u202egnp.exe" in page  # the override shown as its escape, as `sanitize.text` prints it
    assert page.count("<script") == 1 and '<script src="static/view.js"' in page
    sec = _section(_page(model, 0, 38))
    failed = _row(sec, "step-3")
    assert "failed" in failed.split(">", 1)[0] and '<span class="chip err">error</span>' in failed
    assert "chip err" not in _row(sec, "step-1")


def test_missing_unreadable_and_changed_logs_say_so(model, traj_runs, demo, tmp_path) -> None:
    """No log: "no trajectory found (not audited)". A symlinked log: the reader's note, no step. A log edited
    after scoring: its SHA-256 differs from the recorded one, so no step is shown and the page says why; a log
    added after scoring and one removed are named so, the added one's steps not shown."""
    assert "no trajectory found (not audited)" in _section(_page(model, 0, 83))
    sec = _section(_page(model, 1, 38))
    assert "unreadable" in sec and "a symlink: not followed" in sec and '<tr id="step-' not in sec
    run = tmp_path / "partial"
    shutil.copytree(traj_runs["partial"], run)
    log = run / "37" / "agent" / "trajectory.json"
    log.write_text(log.read_text().replace("ffprobe", "ffprobx"))
    shutil.move(run / "38" / "agent" / "claude-code.txt", run / "38" / "later.jsonl")
    changed = build_model([run], dataset=demo.mirror, resamples=0)
    sec = _section(task_page(changed, Site(), _thumbs(tmp_path), 0, 37))
    assert "the log changed since scoring" in sec and '<tr id="step-' not in sec
    assert "⚑ answer_access" in sec and "step not shown" in sec  # the recorded flag stays, unlinked
    sec = _section(task_page(changed, Site(), _thumbs(tmp_path), 0, 38))
    assert "added since scoring: not audited" in sec and "removed since scoring" in sec
    assert '<tr id="step-' not in sec


def test_a_long_log_is_bounded(model) -> None:
    """A 5,000-step log draws at most `MAX_ROWS` steps (its first and last), says which were left out, and
    still draws the flagged step far inside it; the page stays small and quick."""
    far = _flagged_step(model, 1, 83)
    started = time.perf_counter()
    page = _page(model, 1, 83)
    took = time.perf_counter() - started
    sec = _section(page)
    rows = re.findall(r'<tr id="step-([0-9]+)"', sec)
    assert len(rows) <= MAX_ROWS + 1 and str(far) in rows and int(rows[-1]) >= 2 * LONG - 1
    assert 'class="step role-agent flagged"' in _row(sec, f"step-{far}")
    assert sec.count('<tr class="gap">') == 2 and "not shown" in sec
    assert len(page) < 400_000 and took < 30


def test_overview_summarises_the_audit(model) -> None:
    """Per run: audited, unreadable and not audited tasks, and per rule the flagged tasks linking the step."""
    page = overview(model, Site())
    table = page[page.index('<table id="audit-summary"') :].split("</table>", 1)[0]
    partial, perfect = table.split("<tr><td>")[1:]
    cells = re.findall(r'<td class="r">([0-9]+)', partial)
    assert cells == ["2", "0", "1"]  # 37 and 38 audited, 83 without a log
    assert '<span class="mark">!</span> 1: <a href="task-0-37.html#step-4">37</a>' in partial
    assert re.findall(r'<td class="r">([0-9]+)', perfect) == ["2", "1", "0"]
    assert f'href="task-1-83.html#step-{_flagged_step(model, 1, 83)}"' in perfect


def test_side_by_side_pages_link_the_timeline(model) -> None:
    """A compare page shows each run's audit status and flags, linked to the run's own task page."""
    from agenticvbench.view.pages import compare_page

    page = compare_page(model, Site(compare=True), _thumbs(Path(model.runs[0].ref.path).parent), 37)
    assert 'href="task-0-37.html#step-4"' in page and '<tr id="step-' not in page


def test_bundle_withholds_a_flagged_steps_result(model, demo, traj_runs, tmp_path) -> None:
    """A published bundle keeps the flagged step's tool, flag and triggering path, and never holds what it
    received (the planted answer); a task the run solved exactly keeps the shape of its steps, not their text."""
    public = build_model(
        [traj_runs["partial"], traj_runs["perfect"]], dataset=demo.mirror, local=False, resamples=0
    )
    out = tmp_path / "bundle"
    write_bundle(public, out, _thumbs(tmp_path), media="none", policy=published())
    blob = "\n".join(p.read_text("utf-8", "replace") for p in sorted(out.rglob("*")) if p.is_file())
    assert PLANTED not in blob
    sec = _section((out / "task-0-37.html").read_text())
    flagged = _row(sec, "step-4")
    assert (
        "<td>Bash</td>" in flagged
        and "⚑ answer_access" in flagged
        and "train-00000-of-00001.parquet" in flagged
    )
    assert "withheld from this bundle" in flagged and "<details" not in flagged
    assert '<details class="args"><summary>command=ffprobe' in _row(sec, "step-1")  # unflagged steps stay
    solved = _section((out / "task-1-37.html").read_text())
    assert "solution.json" not in solved and "the run solved this task exactly" in solved
    assert "solution.json" in _section(_page(model, 1, 37))  # shown locally


def test_disclosure_has_one_switch_for_flagged_steps() -> None:
    """The rule lives in the disclosure table: locally shown, withheld by every published policy."""
    assert LOCAL.flagged_steps and not published().flagged_steps
    assert not published(rubric=True, answers=True).flagged_steps
    assert "flagged_steps" in published().withheld()


def _result_of(model, run: int, task: int) -> dict:
    """The result of (run, task) as its file holds it."""
    return json.loads((Path(model.runs[run].ref.path) / "avb-results" / f"{task}.json").read_text())


def _edit_result(run: Path, task: int, edit) -> None:
    """Rewrite the result of `task` in `run` with `edit(data)` (unsigned, its SHA-256 taken again), as a result
    written by an older `avb verify`, or a hostile one, reads."""
    from agenticvbench.results.model import canonical_sha256

    path = run / "avb-results" / f"{task}.json"
    data = json.loads(path.read_text())
    edit(data)
    data.pop("signature", None)
    data["result_sha256"] = canonical_sha256(data)
    path.write_text(json.dumps(data))


def _bundle_section(run: Path, demo, tmp_path: Path, page: str) -> str:
    public = build_model([run], dataset=demo.mirror, local=False, resamples=0)
    out = tmp_path / "bundle"
    write_bundle(public, out, _thumbs(tmp_path), media="none", policy=published())
    blob = "\n".join(p.read_text("utf-8", "replace") for p in sorted(out.rglob("*")) if p.is_file())
    assert PLANTED not in blob
    return _section((out / page).read_text())


def test_a_flagged_step_only_the_provenance_names_is_withheld(demo, traj_runs, tmp_path) -> None:
    """The warnings name at most 20 findings; a step flagged past them was published in full. The viewer reads
    the flagged steps from `provenance.trajectory.flagged_steps`: with its warning gone, step 4 is still
    withheld."""
    run = tmp_path / "partial"
    shutil.copytree(traj_runs["partial"], run)
    _edit_result(
        run,
        37,
        lambda d: d.update(warnings=[w for w in d["warnings"] if not w.startswith("INTEGRITY answer")]),
    )
    sec = _bundle_section(run, demo, tmp_path, "task-0-37.html")
    flagged = _row(sec, "step-4")
    assert (
        "⚑ answer_access" in flagged and "withheld from this bundle" in flagged and "<details" not in flagged
    )
    assert '<details class="args"><summary>command=ffprobe' in _row(sec, "step-1")


def test_findings_the_result_does_not_locate_withhold_every_step(demo, traj_runs, tmp_path) -> None:
    """A result that counts more findings than it locates (an older result's "N more" warning, or the audit's
    cap) cannot say which steps they are: a bundle withholds the call and result of every step of the task;
    the local page still shows them."""
    run = tmp_path / "partial"
    shutil.copytree(traj_runs["partial"], run)

    def older(d: dict) -> None:
        d["provenance"]["trajectory"].pop("flagged_steps", None)
        d["warnings"].append("INTEGRITY 2 more trajectory finding(s); `avb audit` lists them")

    _edit_result(run, 37, older)
    sec = _bundle_section(run, demo, tmp_path, "task-0-37.html")
    assert "<details" not in sec and sec.count("does not locate") == 6  # every call but the flagged one
    assert "⚑ answer_access" in _row(sec, "step-4") and "2 more finding(s)" in sec
    local = build_model([run], dataset=demo.mirror, resamples=0)
    assert '<details class="args"><summary>command=ffprobe' in _row(_section(_page(local, 0, 37)), "step-1")


def test_a_solved_tasks_flagged_step_keeps_no_named_path(model, demo, traj_runs, tmp_path) -> None:
    """In a task the run solved exactly, the paths and URLs a flagged step named can carry the submission (an
    answer in a URL): without --show-answers a bundle keeps the step's tool and flag, not what it named."""
    far = _flagged_step(model, 1, 83)
    parquet = next(demo.mirror.rglob("*.parquet")).name
    assert parquet in _row(_section(_page(model, 1, 83)), f"step-{far}")  # shown locally
    public = build_model([traj_runs["perfect"]], dataset=demo.mirror, local=False, resamples=0)
    out = tmp_path / "bundle"
    write_bundle(public, out, _thumbs(tmp_path), media="none", policy=published())
    page = (out / "task-0-83.html").read_text()
    row = _row(_section(page), f"step-{far}")
    assert "⚑ answer_access" in row and parquet not in row and "paths and URLs it named" in row
    # the why's parenthesised detail can spell the answer (a URL's tail): not in the row, the flag list or the
    # provenance row; its head stays
    [why] = [f["why"] for f in _result_of(public, 0, 83)["provenance"]["trajectory"]["flagged_steps"]]
    head, detail = why.split(" (", 1)
    assert escape(head) in row and escape(detail) not in page and why.count("(") >= 1
    write_bundle(public, out, _thumbs(tmp_path), media="none", policy=published(answers=True))
    assert parquet in _row(_section((out / "task-0-83.html").read_text()), f"step-{far}")


def test_a_log_unreadable_at_scoring_is_not_called_added(demo, traj_runs, tmp_path) -> None:
    """A task with a clean log and one the audit could not read was `audited` with the unread log only in its
    notes, and the page called that log "added since scoring". It is "unreadable at scoring" with the reason,
    and the status says how many logs were not read, on the page and the overview (from the result's
    `unreadable` list, or the notes of a result written before it)."""
    run = tmp_path / "partial"
    shutil.copytree(traj_runs["partial"], run)
    (tmp_path / "elsewhere.txt").write_text("{}\n")
    (run / "37" / "agent" / "claude-code.txt").symlink_to(tmp_path / "elsewhere.txt")
    verify_run([run], dataset=demo.mirror, task_ids=[37], jobs=1, cache_dir=tmp_path / "cache")
    for older in (False, True):
        if older:
            _edit_result(run, 37, lambda d: d["provenance"]["trajectory"].pop("unreadable", None))
        local = build_model([run], dataset=demo.mirror, resamples=0)
        sec = _section(_page(local, 0, 37))
        assert (
            "unreadable at scoring" in sec and "a symlink: not followed" in sec and "added since" not in sec
        )
        assert "audited, 1 log(s) unreadable: 1 finding(s)" in sec
        assert '<tr id="step-4"' in sec  # the log that was read is drawn
        table = overview(local, Site())
        assert '1 with unreadable logs: <a href="task-0-37.html#trajectory"' in table or older


QUOTED = "QUOTED-AFTER-READ-5d1e"  # what the agent repeats after reading the table: never in a bundle


def _after_read_log(parquet: Path) -> str:
    """A Claude Code log: a read of the dataset's table (flagged), then a message quoting what it read and a
    result whose call id matches no call (an orphan), neither of which the audit judges."""
    text = logs.claude_code([logs.shell(f"python -c 'read(\"{parquet}\")'", result=f"{QUOTED} weight 3")])
    lines = [json.loads(line) for line in text.splitlines()][:-1]
    said = {"type": "text", "text": f"The table says {QUOTED}; I will follow it."}
    lines.append(
        {"type": "assistant", "message": {"role": "assistant", "content": [said]}, "session_id": "s1"}
    )
    orphan = {"type": "tool_result", "tool_use_id": "toolu_0-sub", "content": f"ORPHAN {QUOTED}"}
    lines.append({"type": "user", "message": {"role": "user", "content": [orphan]}, "session_id": "s1"})
    return "\n".join(map(json.dumps, lines)) + "\n"


def test_a_bundle_withholds_what_follows_an_answer_read_or_names_another_task(
    demo, traj_runs, tmp_path
) -> None:
    """Task 38's agent read the dataset's table (flagged), then quoted it in a message and an orphan result, and
    in another log printed task 37's solution (`cd .. && cat 37/output/solution.json`): the bundle withheld only
    the flagged row. Now every step after the read, the orphan, and the steps from the one naming task 37's
    folder are withheld, each row saying why. The paths the agent printed, spelled `//` or `/./` or through the
    symlink the dataset was given by, become placeholders a browser shows (`[run 1]`, `[dataset]`)."""
    run = tmp_path / "partial"
    shutil.copytree(traj_runs["partial"], run)
    link = tmp_path / "dslink"
    link.symlink_to(demo.mirror)
    solution = '{"order": ["4", "1", "6"], "mark": "SOLUTION-OF-37-9b2c"}'
    (run / "38" / "agent" / "read.jsonl").write_text(_after_read_log(next(demo.mirror.rglob("*.parquet"))))
    printed = f"{tmp_path}/./partial/38\n{run}//38\n{link}/data"
    calls = [logs.shell("pwd", printed), logs.shell("cd .. && cat 37/output/solution.json", solution)]
    (run / "38" / "agent" / "other.jsonl").write_text(logs.claude_code([*calls, logs.shell("echo later")]))
    verify_run([run], dataset=demo.mirror, task_ids=[38], jobs=1, cache_dir=tmp_path / "cache")
    public = build_model([run], dataset=link, local=False, resamples=0)
    out = tmp_path / "bundle"
    write_bundle(public, out, _thumbs(tmp_path), media="none", policy=published())
    blob = "\n".join(p.read_text("utf-8", "replace") for p in sorted(out.rglob("*")) if p.is_file())
    assert QUOTED not in blob and "<run 1>" not in blob
    sec = _section((out / "task-0-38.html").read_text())
    assert "SOLUTION-OF-37-9b2c" not in blob
    assert sec.count("flagged answer read, and can quote it") >= 2  # the message and the orphan
    assert (
        "foreign_task" in sec and "echo later" not in sec
    )  # the audit flags the read; every later step goes
    assert "[run 1]/38" in sec and "[run 1]//38" in sec and "[dataset]/data" in sec
    assert str(link) not in sec and f"{tmp_path}/./partial" not in sec
    local = build_model([run], dataset=link, resamples=0)
    assert QUOTED in _section(_page(local, 0, 38))  # the local page shows everything
