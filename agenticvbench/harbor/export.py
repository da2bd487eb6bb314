"""`avb export harbor`: one Harbor task directory per AgenticVBench task, plus a listing of them.

Layout of `DIR/<family>-<id>/` (Harbor's task format):
- `task.toml`: timeouts and resources per family (`family_settings.json`), outputs declared as the artifact
  `/workspace/output`, `[verifier] environment_mode = "separate"`, recap judge settings as `${VAR}` templates
  resolved from the host by Harbor (no secret is written);
- `instruction.md`: the task's prompt plus the family's output contract (`contract.py`);
- `environment/`: `Dockerfile` (pinned base, ffmpeg, non-root user) and `materials/` baked in. Never a
  verifier-only reference;
- `tests/`: `Dockerfile` (installs this package: the baked wheel, see `wheel.py`, or `--package-spec`), `test.sh` (`avb score` then `avb harbor
  reward`) and `reference/` (the repair source and profile, the recap rubric): only the verifier sees these;
- `solution/`: `solve.sh` and `gold/` (the files of `avb gold`), uploaded by Harbor for the oracle agent only.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.dataset.loader import default_cache_dir
from agenticvbench.dataset.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask, Task
from agenticvbench.errors import AVBError, TaskError
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.harbor import scripts
from agenticvbench.harbor.contract import OUTPUT_DIR, instruction
from agenticvbench.harbor.gold import RECAP_NONE, gold_output
from agenticvbench.harbor.manifest import write_manifest
from agenticvbench.harbor.wheel import build_wheel, check_wheel
from agenticvbench.verifiers import uses_judge
from agenticvbench.version import __version__

SETTINGS_PATH = Path(__file__).with_name("family_settings.json")
#: Judge settings (a family that `verifiers.uses_judge`: recap) passed from the host into the verifier (Harbor resolves `${VAR:-}` at run time).
JUDGE_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AVB_JUDGE_MODE", "AVB_JUDGE_MODEL", "AVB_JUDGE_BASE_URL")
LISTING = "agenticvbench-tasks.json"


def family_settings() -> dict[str, dict[str, float]]:
    """Timeouts and resources per family (see `family_settings.json`)."""
    data = json.loads(SETTINGS_PATH.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def task_dir_name(task: Task) -> str:
    """`<family>-<id>` with the id zero-padded to three digits, e.g. `sequencing-037`."""
    return f"{task.family}-{task.task_id:03d}"


@dataclass(kw_only=True)
class ExportOptions:
    """Choices that are the same for every exported task."""

    base_image: str = scripts.DEFAULT_BASE_IMAGE
    #: What the verifier image pip-installs; empty: the wheel `wheel` (default: built from this checkout) baked
    #: into each task's `tests/` folder.
    package_spec: str = ""
    wheel: Path | None = None
    solutions: bool = True
    dataset: str = ""
    revision: str = ""


@dataclass
class ExportSummary:
    """What was exported: task directory names by task id, and tasks whose oracle writes nothing."""

    root: Path
    tasks: dict[int, str] = field(default_factory=dict)
    no_gold: dict[int, str] = field(default_factory=dict)
    digest: str = ""


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _table(name: str, values: dict[str, Any]) -> str:
    return f"[{name}]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in values.items()) + "\n"


def task_toml(task: Task, opts: ExportOptions) -> str:
    """The task's `task.toml`."""
    s = family_settings()[task.family]
    text = 'schema_version = "1.4"\n' + f"artifacts = {_toml([OUTPUT_DIR])}\n\n"
    text += _table(
        "task",
        {
            "name": f"agenticvbench/{task_dir_name(task)}",
            "description": f"AgenticVBench task {task.task_id} ({task.family})",
            "keywords": ["agenticvbench", "video", task.family],
        },
    )
    text += _table(
        "metadata",
        {
            "agenticvbench_task_id": task.task_id,
            "family": task.family,
            "dataset": opts.dataset,
            "dataset_revision": opts.revision,
            "agenticvbench_version": __version__,
        },
    )
    text += _table("agent", {"timeout_sec": float(s["agent_timeout_sec"]), "user": scripts.AGENT_USER})
    text += _table(
        "environment",
        {
            "build_timeout_sec": float(s["build_timeout_sec"]),
            "cpus": s["cpus"],
            "memory_mb": s["memory_mb"],
            "storage_mb": s["storage_mb"],
        },
    )
    text += _table(
        "verifier", {"timeout_sec": float(s["verifier_timeout_sec"]), "environment_mode": "separate"}
    )
    if uses_judge(task.family):
        text += _table("verifier.env", {var: f"${{{var}:-}}" for var in JUDGE_ENV})
    return text


def _ids_arg(task_id: int, ids: list[str], name: str) -> str:
    for i in ids:
        if "," in i or i != i.strip():
            raise TaskError(
                task_id, name, f"id {i!r} cannot be passed on the command line (comma or padding)"
            )
    return ",".join(ids)


def _score_args(task: Task, tests: Path) -> list[str]:
    """Arguments of `avb score <family>`; writes the references the verifier needs under `tests/reference/`."""
    q = scripts.q
    if isinstance(task, (SequencingTask, AssemblyTask)):
        key, flag = (
            ("correct_order", "--correct-order")
            if isinstance(task, SequencingTask)
            else ("correct_assembly_in_slot_order", "--correct-assembly")
        )
        ids = _ids_arg(task.task_id, getattr(task, key), f"rubric_json.{key}")
        return ['--solution-json "$OUT/solution.json"', f"--task-id {task.task_id}", f"{flag} {q(ids)}"]
    ref = tests / "reference"
    ref.mkdir(parents=True, exist_ok=True)
    if isinstance(task, RepairTask):
        from agenticvbench.verifiers.repair import source_of

        _place(source_of(task), ref / "source.mp4")
        atomic_write_json(ref / "profile.json", task.profile)
        rubric = json.loads(task.rubric_json)
        which = (
            ['--profile "$TESTS/reference/profile.json"']
            if isinstance(rubric.get("profile"), dict)
            else [f"--cell {q(task.cell)}"]
        )
        return [
            '--fixed-mp4 "$OUT/fixed.mp4"',
            '--report-md "$OUT/report.md"',
            '--source-mp4 "$TESTS/reference/source.mp4"',
            *which,
            "--workers 2",
        ]
    if isinstance(task, RecapTask):
        atomic_write_json(ref / "rubric.json", task.items)
        return ['--final-mp4 "$OUT/final.mp4"', '--rubric "$TESTS/reference/rubric.json"']
    raise TaskError(task.task_id, "task_family", f"no Harbor export for family {task.family!r}")


def _place(src: Path, dest: Path) -> None:
    """Hard-link (same file system) or copy `src` to `dest`."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)


def _materials(task: Task, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for path in task.materials():
        items = sorted(path.iterdir()) if path.is_dir() else [path]
        for item in items:
            target = dest / item.name
            if target.exists():
                raise TaskError(task.task_id, "reference_file_urls", f"two materials named {item.name!r}")
            if item.is_dir():
                shutil.copytree(item, target, copy_function=lambda s, d: _place(Path(s), Path(d)))
            elif item.is_file():
                _place(item, target)


def _write(path: Path, text: str, *, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if executable:
        path.chmod(0o755)


def export_task(task: Task, root: Path, opts: ExportOptions) -> str | None:
    """Write one task directory (staged, then renamed into place); returns the reason when it has no gold."""
    final = root / task_dir_name(task)
    stage = root / f".{final.name}.partial"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        _write(stage / "instruction.md", instruction(task))
        _write(stage / "task.toml", task_toml(task, opts))
        _write(stage / "environment" / "Dockerfile", scripts.agent_dockerfile(opts.base_image))
        _materials(task, stage / "environment" / "materials")
        tests = stage / "tests"
        _write(tests / "test.sh", scripts.test_sh(task.family, _score_args(task, tests)), executable=True)
        spec = opts.package_spec
        if not spec:
            assert opts.wheel is not None, "export_harbor resolves the wheel first"
            _place(opts.wheel, tests / opts.wheel.name)
            spec = f"/tests/{opts.wheel.name}"
        _write(tests / "Dockerfile", scripts.verifier_dockerfile(opts.base_image, spec))
        no_gold = None
        if opts.solutions:
            gold = gold_output(task)
            files: list[str] = []
            if gold is None:
                no_gold = RECAP_NONE
            else:
                files = [p.name for p in gold.write(stage / "solution" / "gold")]
            _write(stage / "solution" / "solve.sh", scripts.solve_sh(files, no_gold or ""), executable=True)
        if final.exists():
            shutil.rmtree(final)
        os.replace(stage, final)
        return no_gold
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def export_harbor(tasks: list[Task], out: str | Path, opts: ExportOptions | None = None) -> ExportSummary:
    """Export `tasks` as Harbor task directories under `out`, and write the listing `agenticvbench-tasks.json`."""
    opts = opts or ExportOptions()
    if not opts.package_spec:
        opts.wheel = check_wheel(opts.wheel) if opts.wheel else build_wheel(default_cache_dir())
    root = Path(out)
    if root.exists() and not root.is_dir():
        raise AVBError(f"{root}: exists and is not a directory")
    root.mkdir(parents=True, exist_ok=True)
    summary = ExportSummary(root=root)
    for task in sorted(tasks, key=lambda t: t.task_id):
        reason = export_task(task, root, opts)
        summary.tasks[task.task_id] = task_dir_name(task)
        if reason:
            summary.no_gold[task.task_id] = reason
    meta = {"agenticvbench_version": __version__, "dataset": opts.dataset, "dataset_revision": opts.revision}
    folders = {f"agenticvbench/{name}": root / name for name in summary.tasks.values()}
    digest, digests = write_manifest(root, folders, version=__version__, metadata=meta)
    summary.digest = digest
    atomic_write_json(
        root / LISTING,
        {
            "format": "agenticvbench.harbor-export@1",
            **meta,
            "dataset_digest": digest,
            "package_spec": opts.package_spec or f"/tests/{opts.wheel.name if opts.wheel else ''}",
            "tasks": [
                {
                    "task_id": tid,
                    "family": name.rsplit("-", 1)[0],
                    "path": name,
                    "name": f"agenticvbench/{name}",
                    "digest": digests[f"agenticvbench/{name}"],
                    "oracle": tid not in summary.no_gold,
                }
                for tid, name in sorted(summary.tasks.items())
            ],
        },
    )
    return summary
