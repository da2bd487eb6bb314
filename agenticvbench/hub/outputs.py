"""Run outputs in a published repo: which ones `avb publish --with-outputs` may send, and `avb pull --rescore`.

What may be published is what a published `avb view --bundle` may show, decided by the viewer's own functions, not
by a second policy here:

- `view.model.ViewModel.outputs` (which applies `view.checked.check_output`): the bytes scoring hashed, of a task
  whose media scoring did not refuse, not flagged as a verifier-only reference or a near copy, and not
  byte-identical to a verifier-only reference of the dataset (so the dataset's tasks must be readable);
- `view.evidence.output_withheld` under `view.disclosure.published(answers=...)`: never a repair output video (a
  good repair reproduces the verifier-only source), and no output of a task the run solved exactly unless the
  operator opts in (`--show-answers`: the submission is the answer).

A task's outputs are published whole or not at all: one refused or withheld file withholds the task (a partial
set would rescore to another number). Each file is copied through the descriptor the viewer checked
(`ViewModel.opened`) and hashed again after the copy. They go to `runs/<run>/outputs/<task_id>/<name>`; a pull
writes them to `DIR/runs/<run>/<task_id>/<name>`, the layout `avb verify` reads.

`rescore` scores the pulled outputs again (`scoring.engine.verify_run`, `force=True`) into
`DIR-rescored/<run>/avb-results/`, never over the published result files, and compares each task's status and scores with the
published result; a task that differs is named with what its two results disagree on (verifier version, judge,
dataset, libraries).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.errors import SubmissionError
from agenticvbench.hub.layout import OUTPUTS_DIRNAME, RUNS_DIR
from agenticvbench.results.model import Result, results_dir_for
from agenticvbench.runs.pinned import PinError
from agenticvbench.runs.submission import RESULTS_DIRNAME

#: What `rescore` appends to the pull folder's name for the folder it writes its results into (a sibling: the pull
#: folder holds `data/*.parquet`, so the engine treats it as a dataset mirror and writes nothing inside it).
RESCORED_SUFFIX = "-rescored"
#: The result fields a rescore must reproduce.
COMPARED = ("status", "headline_score", "final_score", "adjusted_final_score")


@dataclass(kw_only=True)
class StagedOutputs:
    """What `stage_outputs` wrote: repo paths, the task ids published per run, and one line per withheld task."""

    files: list[str] = field(default_factory=list)
    published: dict[str, list[int]] = field(default_factory=dict)
    withheld: list[str] = field(default_factory=list)


def output_path(run: str, task_id: int, name: str) -> str:
    """The repo path of output `name` of `task_id` in run `run`."""
    return f"{RUNS_DIR}/{run}/{OUTPUTS_DIRNAME}/{int(task_id)}/{name}"


def _run_root(path: str | Path) -> Path | None:
    folder = results_dir_for(path)
    return folder.resolve().parent if folder.name == RESULTS_DIRNAME else None


def stage_outputs(
    paths: Sequence[str | Path],
    names: Sequence[str],
    staged: Mapping[str, Mapping[int, str]],
    folder: Path,
    *,
    answers: bool = False,
    dataset: str | None = None,
    revision: str | None = None,
) -> StagedOutputs:
    """Copy the publishable outputs of the runs at `paths` (staged as `names`; `staged[name][task_id]` is the
    `result_sha256` of the result file staged for it) into `folder` (module docstring). Raises
    `SubmissionError` when the dataset's tasks cannot be read (no output could be checked against its
    verifier-only references)."""
    from agenticvbench.view.disclosure import published
    from agenticvbench.view.evidence import output_withheld
    from agenticvbench.view.model import build_model

    model = build_model(list(paths), dataset=dataset, revision=revision, local=False, resamples=0)
    if not model.tasks:
        raise SubmissionError(
            "--with-outputs needs the dataset's tasks, to check no output is a verifier-only reference: "
            + "; ".join(model.notes or ["give --dataset"])
        )
    policy = published(answers=answers)
    roots = {_run_root(p): name for p, name in zip(paths, names, strict=True)}
    out = StagedOutputs()
    for run in model.runs:
        name = roots.get(Path(run.ref.path).resolve())
        if name is None:
            continue
        out.published[name] = []
        for tid in sorted(staged[name]):
            cell = model.cell(run.index, tid)
            if cell is None or cell.result is None or cell.result.result_sha256 != staged[name][tid]:
                out.withheld.append(f"{name}/{tid}: its result changed since it was staged")
                continue
            files, notes = model.outputs(run.index, tid, cell.family)
            # scoring read these: without one of them a rescore gives another number (files scoring did not
            # read are published when the viewer offers them, and need not be)
            hashed = _prov(cell.result, "input_hashes")
            needed = set(hashed if isinstance(hashed, dict) else {}) & set(OUTPUT_FILES.get(cell.family, ()))
            missing = sorted(needed - {fname for fname, _ in files})
            why = next((n for n in notes for m in missing if n.startswith(m)), "")
            why = why or (f"{missing[0]} not offered" if missing else "")
            for _, i in files:
                why = why or output_withheld(policy, cell.family, cell.result, model.files[i].is_video)
            if why:
                out.withheld.append(f"{name}/{tid}: {why}")
                continue
            written = [_copy(model, i, folder / output_path(name, tid, fname)) for fname, i in files]
            if files and all(written):
                out.files += [output_path(name, tid, fname) for fname, _ in files]
                out.published[name].append(tid)
            elif files:
                for fname, _ in files:
                    (folder / output_path(name, tid, fname)).unlink(missing_ok=True)
                out.withheld.append(f"{name}/{tid}: an output changed while it was copied")
    return out


def _copy(model: Any, index: int, dest: Path) -> bool:
    """Copy output `index` through the descriptor the viewer checked; False when it changed since."""
    ref = model.files[index]
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with model.opened(index) as source:
            shutil.copyfile(source, dest)
    except PinError:
        return False
    digest = hashlib.sha256()
    with dest.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return ref.checked is not None and digest.hexdigest() == ref.checked.sha256


@dataclass(kw_only=True)
class Rescore:
    """What `rescore` found: tasks rescored per run, the ones that reproduced, and one line per task that did
    not (what differs and why)."""

    folder: str = ""
    rescored: dict[str, list[int]] = field(default_factory=dict)
    same: int = 0
    differs: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every rescored task reproduced its published numbers."""
        return not self.differs

    def to_dict(self) -> dict[str, Any]:
        """The `rescore` block of `avb-pull.json`."""
        return {
            "folder": self.folder,
            "rescored": self.rescored,
            "same": self.same,
            "differs": self.differs,
            "ok": self.ok,
        }


def _prov(r: Result, key: str) -> Any:
    return (r.provenance or {}).get(key) if isinstance(r.provenance, dict) else None


def why_different(published: Result, rescored: Result) -> str:
    """What the two results of one task disagree on besides their numbers ('' when nothing explains it)."""
    reasons = []
    for key in ("verifier_version", "judge_mode", "judge_model", "package_version", "input_hashes"):
        a, b = _prov(published, key), _prov(rescored, key)
        if a != b:
            reasons.append(f"{key.replace('_', ' ')} {a!r} -> {b!r}")
    da, db = _prov(published, "dataset") or {}, _prov(rescored, "dataset") or {}
    if (
        isinstance(da, dict)
        and isinstance(db, dict)
        and da.get("resolved_revision") != db.get("resolved_revision")
    ):
        reasons.append(f"dataset revision {da.get('resolved_revision')!r} -> {db.get('resolved_revision')!r}")
    la, lb = _prov(published, "libraries") or {}, _prov(rescored, "libraries") or {}
    if isinstance(la, dict) and isinstance(lb, dict):
        changed = sorted(k for k in set(la) | set(lb) if la.get(k) != lb.get(k))
        if changed:
            reasons.append("libraries " + ", ".join(f"{k} {la.get(k)} -> {lb.get(k)}" for k in changed[:4]))
    return "; ".join(reasons)


def compare(published: Result, rescored: Result) -> str:
    """'' when `rescored` reproduces `published` (status and scores, to 1e-9), else one line saying how not."""
    diffs = []
    for key in COMPARED:
        a, b = getattr(published, key), getattr(rescored, key)
        same = a == b or (
            isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(float(a) - float(b)) <= 1e-9
        )
        if not same:
            diffs.append(f"{key} {a!r} -> {b!r}")
    if not diffs:
        return ""
    why = why_different(published, rescored)
    return ", ".join(diffs) + f" ({why or 'the results differ in nothing else that is recorded'})"


def rescore(
    folder: Path,
    runs: Sequence[Mapping[str, Any]],
    *,
    dataset: str,
    revision: str | None = None,
    jobs: int | None = None,
    judge: Any = None,
) -> Rescore:
    """Rescore the outputs pulled into `folder` (`DIR/runs/<run>/<task_id>/`) into `DIR-rescored/<run>/` and
    compare them with the published results. `runs` are the card's run rows (their identity is the rescore's)."""
    from agenticvbench.results.model import scan_results
    from agenticvbench.results.signatures import reader_key
    from agenticvbench.scoring.engine import verify_run

    key, _ = reader_key(None)
    where = folder.with_name(folder.name + RESCORED_SUFFIX)
    out = Rescore(folder=str(where))
    for row in runs:
        name = str(row.get("run", ""))
        run_dir = folder / "runs" / name
        tids = sorted(
            int(p.name)
            for p in run_dir.glob("*")
            if p.is_dir() and p.name.isdigit() and (run_dir / RESULTS_DIRNAME / f"{p.name}.json").is_file()
        )
        if not tids:
            continue
        target = where / name
        if target.exists():
            shutil.rmtree(target)
        meta = {k: row[k] for k in ("harness", "model", "rep") if row.get(k) is not None}
        verify_run(
            run_dir,
            dataset=dataset,
            revision=revision,
            task_ids=tids,
            out=target / RESULTS_DIRNAME,
            force=True,
            jobs=jobs,
            judge=judge,
            run_meta=meta or None,
        )
        before = {int(r.task_id): r for r in scan_results(run_dir, key).results}
        after = {int(r.task_id): r for r in scan_results(target, key).results}
        out.rescored[name] = tids
        for tid in tids:
            if tid not in after:
                out.differs.append(f"{name}/{tid}: no result after rescoring")
            elif line := compare(before[tid], after[tid]):
                out.differs.append(f"{name}/{tid} ({before[tid].family}): {line}")
            else:
                out.same += 1
    return out
