"""A tiny, deterministic StudioBench demo: task files (valid, warning, invalid) and run directories.

One run is valid; every other run breaks exactly one rule of `agenticvbench.interop.studiobench_run` (plus the
rules that follow from it, e.g. a missing final.mp4 also cannot decode), and one valid run overruns the protocol's
limits (a warning only). Videos are 64x36 at 1 fps, generated with lavfi through `agenticvbench.media.run_ffmpeg`,
so the whole demo is a few tens of KB and builds in well under a second.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import atomic_write_text
from agenticvbench.interop.studiobench_task import model_view
from agenticvbench.media import run_ffmpeg

TASK_ID = "DEMO-001"
MODEL = "demo-model"
VALID_TASK: dict[str, Any] = {
    "id": TASK_ID,
    "domain": "product",
    "task": "open",
    "wish": "A calm one-minute product teaser for a blue ceramic mug, ending on the logo.",
    "duration_sec": [60, 90],
    "aspect": "16:9",
    "audio_profile": ["music"],
    "must": ["the mug is visible in the first shot"],
    "forbid": ["any on-screen price"],
}
WARNING_TASK: dict[str, Any] = {
    "id": "DEMO-002",
    "domain": "education",
    "task": "reference",
    "wish": "Explain the water cycle in ninety seconds for ten-year-olds.",
    "duration_sec": [80, 120],
    "aspect": "9:16",
    "references": ["refs/water_cycle_diagram.png"],
}
INVALID_TASK: dict[str, Any] = {
    "id": "DEMO 003",
    "domain": "sports",
    "task": "assets",
    "wish": "",
    "duration_sec": [30, 200],
    "aspect": "wide",
    "audio_profile": ["music", "noise"],
    "must": ["", 3],
    "assets": [],
    "mood": "upbeat",
}
SCENARIOS: tuple[str, ...] = (
    "valid",
    "over_limits",
    "missing_final",
    "bad_calls_log",
    "not_exported",
    "foreign_tool",
    "backend_missing",
    "undecodable",
    "no_video",
    "too_short",
    "missing_artifacts",
    "bad_result_json",
    "secret_in_mcp",
)
_STUDIO_CALLS: list[dict[str, Any]] = [
    {
        "name": "mcp__studiobench__plan",
        "arguments": {"beats": 3},
        "backend": None,
        "output": "ok",
        "duration": 2.5,
        "ok": True,
    },
    {
        "name": "mcp__studiobench__generate_video",
        "arguments": {"shot": 1},
        "backend": "demo-video",
        "output": "shot_1.mp4",
        "duration": 40.0,
        "ok": True,
    },
    {
        "name": "mcp__studiobench__export",
        "arguments": {"path": "final.mp4"},
        "backend": None,
        "output": "final.mp4",
        "duration": 3.0,
        "ok": True,
    },
]
_MCP: dict[str, Any] = {
    "mcpServers": {
        "studiobench": {
            "command": "python",
            "args": ["-m", "studiobench.server"],
            "env": {"STUDIOBENCH_VIDEO_API_KEY": "${STUDIOBENCH_VIDEO_API_KEY}"},
        }
    }
}


def _lavfi(dest: Path, source: str, *args: str) -> Path:
    """Encode the lavfi `source` with the output options `args` into `dest` (bit-exact, no metadata)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["-y", "-f", "lavfi", "-i", source, *args, "-fflags", "+bitexact", "-map_metadata", "-1", str(dest)]
    run_ffmpeg(cmd, check=True)
    return dest


def _video(dest: Path, seconds: int) -> Path:
    codec = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-threads", "1"]
    return _lavfi(dest, f"color=c=0x336699:s=64x36:r=1:d={seconds}", *codec, "-flags:v", "+bitexact")


def _audio_only(dest: Path, seconds: int) -> Path:
    codec = ["-c:a", "aac", "-b:a", "8k", "-flags:a", "+bitexact"]
    return _lavfi(dest, "anullsrc=r=8000:cl=mono", "-t", str(seconds), *codec)


def _dump(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2) + "\n")


def _result(
    calls: int,
    *,
    submitted: bool,
    valid: bool,
    wall_clock_s: float = 1850.0,
    available: tuple[str, ...] = ("demo-video", "demo-tts"),
) -> dict[str, Any]:
    return {
        "model": MODEL,
        "timings": {"started_at": "2026-01-01T10:00:00Z", "wall_clock_s": wall_clock_s},
        "budget": {"calls": 200, "wall_clock_s": 14400},
        "backends": {"required": ["demo-video"], "available": list(available)},
        "tools_available": [c["name"] for c in _STUDIO_CALLS],
        "calls": {"total": calls, "non_studiobench": 0},
        "submitted": submitted,
        "valid_for_bench": valid,
    }


def _write_run(run: Path, scenario: str, media: dict[str, Path]) -> None:
    run.mkdir(parents=True, exist_ok=True)
    calls = [dict(c) for c in _STUDIO_CALLS]
    submitted, wall = True, 1850.0
    valid = scenario in ("valid", "over_limits", "missing_artifacts", "bad_result_json", "secret_in_mcp")
    available: tuple[str, ...] = ("demo-video", "demo-tts")
    mcp = json.loads(json.dumps(_MCP))
    final: Path | None = media["good"]
    if scenario == "over_limits":
        calls = [dict(_STUDIO_CALLS[0]) for _ in range(205)] + calls
        wall = 20000.0
    elif scenario == "missing_final":
        final, submitted, valid = None, False, False
    elif scenario == "not_exported":
        calls, submitted, valid = calls[:-1], False, False
    elif scenario == "foreign_tool":
        calls.insert(
            1, {"name": "Bash", "arguments": {"command": "ls"}, "output": "", "duration": 0.1, "ok": True}
        )
        valid = False
    elif scenario == "backend_missing":
        available, valid = ("demo-tts",), False
    elif scenario == "undecodable":
        final, valid = media["truncated"], False
    elif scenario == "no_video":
        final, valid = media["audio_only"], False
    elif scenario == "too_short":
        final, valid = media["short"], False
    elif scenario == "secret_in_mcp":
        mcp["mcpServers"]["studiobench"]["env"]["STUDIOBENCH_VIDEO_API_KEY"] = (
            "sk-demoFAKEnotARealKey0000000000"
        )
    lines = [json.dumps(c) for c in calls]
    if scenario == "bad_calls_log":
        lines.insert(1, '{"name": "mcp__studiobench__plan", "ok": ')
        submitted, valid = False, False
    atomic_write_text(run / ".calls.jsonl", "\n".join(lines) + "\n")
    atomic_write_text(run / "prompt.txt", json.dumps(model_view(VALID_TASK), indent=2) + "\n")
    if scenario != "missing_artifacts":
        atomic_write_text(
            run / "sp.md", "# StudioBench\nYou are a film studio. Use only the StudioBench tools.\n"
        )
    _dump(run / "mcp.json", mcp)
    result = _result(len(calls), submitted=submitted, valid=valid, wall_clock_s=wall, available=available)
    if scenario == "bad_result_json":
        atomic_write_text(run / "result.json", json.dumps(result)[:-20])
    else:
        _dump(run / "result.json", result)
    if final is not None:
        shutil.copyfile(final, run / "final.mp4")


def build_studiobench_demo(dest: Path) -> dict[str, Path]:
    """Write the demo under `dest` and return its paths by name.

    Keys: `tasks_dir` (valid task files, one of them without `audio_profile`), `invalid_tasks_dir`,
    `task_valid`, `task_warning`, `task_invalid`, `task_not_json`, `runs_dir`, and `run_<scenario>` for each of
    `SCENARIOS` (each laid out as `runs/<scenario>/DEMO-001/demo-model/`).
    """
    dest = Path(dest)
    out: dict[str, Path] = {
        "tasks_dir": dest / "tasks",
        "invalid_tasks_dir": dest / "tasks-invalid",
        "runs_dir": dest / "runs",
    }
    out["task_valid"] = out["tasks_dir"] / f"{TASK_ID}.json"
    out["task_warning"] = out["tasks_dir"] / "DEMO-002.json"
    out["task_invalid"] = out["invalid_tasks_dir"] / "DEMO-003.json"
    out["task_not_json"] = out["invalid_tasks_dir"] / "not-json.json"
    _dump(out["task_valid"], VALID_TASK)
    _dump(out["task_warning"], WARNING_TASK)
    _dump(out["task_invalid"], INVALID_TASK)
    atomic_write_text(out["task_not_json"], '{"id": "DEMO-004", "domain": \n')

    media_dir = dest / "_media"
    media = {
        "good": _video(media_dir / "good.mp4", 65),
        "short": _video(media_dir / "short.mp4", 20),
        "audio_only": _audio_only(media_dir / "audio_only.mp4", 65),
    }
    data = media["good"].read_bytes()
    media["truncated"] = media_dir / "truncated.mp4"
    media["truncated"].write_bytes(data[: len(data) // 2])
    for scenario in SCENARIOS:
        run = out["runs_dir"] / scenario / TASK_ID / MODEL
        _write_run(run, scenario, media)
        out[f"run_{scenario}"] = run
    return out
