"""The demo benchmark generator: deterministic, real layout and schema, real defects, runs broken as intended."""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.dataset.loader import PARQUET_PATH, default_cache_dir, load_tasks
from agenticvbench.dataset.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask
from agenticvbench.demo import DemoBenchmark, build_demo, default_demo_dir, is_complete
from agenticvbench.demo.common import HUB_RESOLVE
from agenticvbench.demo.repair import REPAIRS, source_path
from agenticvbench.errors import AVBError, MediaError
from agenticvbench.media import decode_audio, iter_frames, probe
from agenticvbench.runs.submission import RunMeta, open_run
from agenticvbench.version import __version__

PYTHON_KINDS = {
    "ffprobe_duration_range",
    "ffprobe_resolution_eq",
    "ffprobe_video_codec_in",
    "ffprobe_audio_streams",
    "ffmpeg_blackdetect_max_run",
    "librosa_silence_max_run",
    "scenedetect_max_shot_duration",
}


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def _tasks(demo: DemoBenchmark) -> dict[int, object]:
    return {t.task_id: t for t in load_tasks(dataset=demo.mirror)}


@pytest.mark.slow
def test_build_is_byte_for_byte_deterministic(demo: DemoBenchmark, tmp_path: Path) -> None:
    """Two builds into different folders give the same file set with identical bytes (the marker included)."""
    again = build_demo(tmp_path / "second")
    first, second = _files(demo.root), _files(again.root)
    assert sorted(first) == sorted(second)
    differing = [name for name in first if first[name].read_bytes() != second[name].read_bytes()]
    assert differing == []
    total = sum(p.stat().st_size for p in first.values())
    print(f"demo build: {len(first)} files, {total / 1e6:.2f} MB")
    assert total < 12e6


def test_reuses_a_complete_build_and_refuses_foreign_folders(demo: DemoBenchmark, tmp_path: Path) -> None:
    marker = demo.root / ".avb-demo.json"
    before = marker.stat().st_mtime_ns
    assert is_complete(demo.root)
    assert build_demo(demo.root) == demo
    assert marker.stat().st_mtime_ns == before
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(AVBError, match="not a demo build"):
        build_demo(foreign)
    assert (foreign / "notes.txt").read_text() == "keep me"
    assert not is_complete(foreign)


def test_force_and_stale_versions_rebuild_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The marker/swap logic, with the media generation stubbed out (one file per build, numbered)."""
    import agenticvbench.demo.build as build_mod

    builds: list[int] = []

    def fake_populate(root: Path, *_: object) -> None:
        builds.append(len(builds) + 1)
        (root / "mirror").mkdir()
        (root / "mirror" / "build.txt").write_text(str(builds[-1]))

    monkeypatch.setattr(build_mod, "_populate", fake_populate)
    dest = tmp_path / "demo"
    first = build_demo(dest)
    assert (first.mirror / "build.txt").read_text() == "1" and is_complete(dest)
    assert build_demo(dest) == first and builds == [1]
    build_demo(dest, force=True)
    assert (dest / "mirror" / "build.txt").read_text() == "2"
    marker = dest / ".avb-demo.json"
    marker.write_text(json.dumps({"generator_version": "0"}))  # a build by an older generator
    assert not is_complete(dest)
    build_demo(dest)
    assert (dest / "mirror" / "build.txt").read_text() == "3" and is_complete(dest)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]  # no staging or old folders left behind


@pytest.mark.slow
def test_an_interrupted_build_resumes_from_its_finished_steps(
    demo: DemoBenchmark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The full size builds for hours: a build that fails part-way keeps its finished steps, the next build runs
    only the rest, and the result has the same bytes as a build that never stopped.

    Three attempts: a step crashes after writing its files (the queue is cancelled); then every remaining step
    runs and the final parquet write fails; then nothing is left to run (no scratch folder is ever created, which
    must not break the clean-up)."""
    import agenticvbench.demo.build as build_mod

    real = {
        name: getattr(build_mod, name)
        for name in (
            "build_sources",
            "build_recap_task",
            "build_sequencing_task",
            "build_assembly_task",
            "build_repair_task",
        )
    }
    real_parquet = build_mod.write_parquet
    finished: list[set[str]] = []

    def key(spec: object, rest: tuple[object, ...]) -> str:
        return f"task {spec.task_id}" if hasattr(spec, "task_id") else f"source {rest[0]}"

    def attempt(
        *,
        crash_task: int | None = None,
        crash_parquet: bool = False,
        progress: Callable[[str], None] | None = None,
    ) -> DemoBenchmark:
        done: set[str] = set()
        finished.append(done)

        def counting(name: str):  # type: ignore[no-untyped-def]
            def run(ctx, spec, *rest):  # type: ignore[no-untyped-def]
                out = real[name](ctx, spec, *rest)  # files written, then the crash: no checkpoint
                if getattr(spec, "task_id", None) == crash_task:
                    raise RuntimeError("simulated crash in a step")
                done.add(key(spec, rest))
                return out

            return run

        def parquet(*args):  # type: ignore[no-untyped-def]
            if crash_parquet:
                raise OSError("simulated full disk")
            return real_parquet(*args)

        for name in real:
            monkeypatch.setattr(build_mod, name, counting(name))
        monkeypatch.setattr(build_mod, "write_parquet", parquet)
        return build_demo(dest, progress=progress)

    dest = tmp_path / "demo"
    with pytest.raises(RuntimeError, match="crash in a step"):
        attempt(crash_task=83)
    with pytest.raises(OSError, match="full disk"):
        attempt(crash_parquet=True)
    assert not dest.exists()
    lines: list[str] = []
    resumed = attempt(progress=lines.append)
    first, second, third = finished
    assert "task 83" not in first and "task 83" in second
    assert first and not first & second and third == set()  # nothing that had finished ran again
    assert len(first | second) == 11 and sum("resumed" in line for line in lines) == 11
    want, got = _files(demo.root), _files(resumed.root)
    assert sorted(want) == sorted(got)
    assert [n for n in want if want[n].read_bytes() != got[n].read_bytes()] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]  # staging, checkpoints and lock are gone


def test_a_stale_or_forced_staging_folder_is_not_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finished steps are reused only by the same generator, size and library versions, and never with force."""
    import agenticvbench.demo.build as build_mod

    seen: list[bool] = []

    def failing_populate(root: Path, *_: object) -> None:
        seen.append((root / "step-done").exists())
        (root / "step-done").write_text("x")
        raise RuntimeError("interrupted")

    monkeypatch.setattr(build_mod, "_populate", failing_populate)
    dest = tmp_path / "demo"
    for _ in range(2):
        with pytest.raises(RuntimeError):
            build_demo(dest)
    assert seen == [False, True]  # the second attempt found the first one's work
    with pytest.raises(RuntimeError):
        build_demo(dest, force=True)
    assert seen[-1] is False
    staging = tmp_path / ".demo.building" / ".steps" / "build.json"
    for field, value in (("generator_version", "0"), ("size", "full"), ("libraries", {"av": "0.0"})):
        with pytest.raises(RuntimeError):
            build_demo(dest)  # same stamp: resumed
        assert seen[-1] is True
        stamp = json.loads(staging.read_text())
        stamp[field] = value
        staging.write_text(json.dumps(stamp))
        with pytest.raises(RuntimeError):
            build_demo(dest)
        assert seen[-1] is False, field


def test_a_second_builder_waits_and_reuses_the_first_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two builders of the same folder at once build it once: the second waits for the lock, then reuses."""
    import threading
    import time

    import agenticvbench.demo.build as build_mod

    builds: list[int] = []

    def slow_populate(root: Path, *_: object) -> None:
        builds.append(len(builds) + 1)
        time.sleep(0.5)
        (root / "mirror").mkdir()

    monkeypatch.setattr(build_mod, "_populate", slow_populate)
    dest = tmp_path / "demo"
    out: list[DemoBenchmark] = []
    threads = [threading.Thread(target=lambda: out.append(build_demo(dest))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert builds == [1] and len(out) == 3 and out[0] == out[1] == out[2] and is_complete(dest)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]


def test_default_demo_dir_is_versioned_under_the_package_cache() -> None:
    assert default_demo_dir() == default_cache_dir() / "demo" / __version__


def test_mirror_layout_and_parquet_schema(demo: DemoBenchmark) -> None:
    table = pq.read_table(demo.mirror / PARQUET_PATH)
    assert table.schema.names == [
        "task_id",
        "task_family",
        "prompt",
        "reference_file_urls",
        "verifier_reference_urls",
        "rubric_json",
    ]
    assert table.schema.field("task_id").type == pa.int64()
    assert table.schema.field("reference_file_urls").type == pa.list_(pa.string())
    assert table.schema.field("verifier_reference_urls").nullable
    rows = table.to_pylist()
    by_family: dict[str, list[int]] = {}
    for r in rows:
        by_family.setdefault(r["task_family"], []).append(r["task_id"])
    assert by_family == {
        "recap": [1, 2],
        "sequencing": [37, 38],
        "repair": [65, 66, 67],
        "assembly": [83, 84],
    }
    urls = [u for r in rows for u in r["reference_file_urls"] + (r["verifier_reference_urls"] or [])]
    assert any(u.startswith(HUB_RESOLVE) for u in urls) and any(not u.startswith("http") for u in urls)
    for r in rows:
        assert (r["verifier_reference_urls"] is None) == (r["task_family"] != "repair")
        for u in r["reference_file_urls"] + (r["verifier_reference_urls"] or []):
            assert (demo.mirror / u.removeprefix(HUB_RESOLVE)).is_file(), u
    expected = [
        "recap/materials/1/film.mp4",
        "sequencing/materials/37.zip",
        "repair/materials/65/broken.mp4",
        "repair/sources/demo1_source.mp4",
        "repair/sources/demo2_source.mp4",
        "assembly/materials/84.zip",
    ]
    assert all((demo.mirror / p).is_file() for p in expected)


def test_load_tasks_over_the_mirror_returns_typed_tasks(demo: DemoBenchmark) -> None:
    tasks = _tasks(demo)
    assert {tid: type(t) for tid, t in tasks.items()} == {
        1: RecapTask,
        2: RecapTask,
        37: SequencingTask,
        38: SequencingTask,
        65: RepairTask,
        66: RepairTask,
        67: RepairTask,
        83: AssemblyTask,
        84: AssemblyTask,
    }
    assert tasks[37].correct_order == ["4", "1", "6", "2", "5", "3"] and tasks[37].n_slots == 6
    assert tasks[83].correct_assembly_in_slot_order == ["3.mp4", "7.mp4", "5.mp4", "11.mp4"]
    assert tasks[83].duration_sec == pytest.approx(sum(tasks[83].correct_assembly_durations))
    assert [tasks[i].variant for i in (65, 66, 67)] == [
        "v01_frozen_scene",
        "v04_color_grade_shift",
        "v05_noise_floor_spike",
    ]


def test_recap_rubrics_have_the_real_item_shape(demo: DemoBenchmark) -> None:
    tasks = _tasks(demo)
    kinds: set[str] = set()
    for tid in (1, 2):
        items = tasks[tid].items
        assert 8 <= len(items) <= 12 and len({i["id"] for i in items}) == len(items)
        assert {i["dispatch"] for i in items} == {"python", "llm", "compound"}
        assert any(i["weight"] < 0 for i in items) and all(i["pillar"] in (0, 1, 2, 3) for i in items)
        kinds |= {i["kind"] for i in items if i["dispatch"] == "python"}
        for comp in (i for i in items if i["dispatch"] == "compound"):
            py, llm = comp["stages"]
            assert py["dispatch"] == "python" and llm["dispatch"] == "llm"
            assert "{" + py["save_as"] + "}" in llm["prompt"]
    assert PYTHON_KINDS <= kinds
    assert tasks[1].items[3]["params"] == {"eq": 1, "min": None, "max": None}  # the Hub's null-filled params


def test_repair_profiles_follow_the_official_schema(demo: DemoBenchmark) -> None:
    tasks = _tasks(demo)
    for spec in REPAIRS:
        t = tasks[spec.task_id]
        p = t.profile
        assert list(p) == [
            "source_file",
            "format",
            "visual",
            "narrative",
            "sound",
            "injection",
        ]  # official order
        assert set(p["format"]) == {
            "resolution",
            "framerate",
            "duration_s",
            "codec",
            "container",
            "pix_fmt",
            "aspect_ratio",
            "bitrate_bps",
            "nb_frames",
        }
        src = probe(source_path(demo.mirror, spec.task_id))
        assert p["format"]["duration_s"] == pytest.approx(src.duration, abs=1e-3)
        assert p["format"]["duration_s"] > 10.0  # at least two 10-s edit chunks
        assert p["format"]["container"] == src.format_name and p["format"]["aspect_ratio"] == "16:9"
        assert p["sound"]["codec"] == src.audio.codec_name and p["sound"]["sample_rate"] == 48000
        assert p["sound"]["channels"] == 2
        scenes = p["narrative"]["scene_list"]
        assert p["narrative"]["scene_count"] == len(scenes) >= 3
        assert set(scenes[0]) == {
            "index",
            "start_s",
            "end_s",
            "duration_s",
            "sharpness",
            "luminance",
            "motion",
            "mean_rgb",
            "phash",
        }
        inj = p["injection"]
        assert {"variant", "subtask", "rng_seed", "start_s", "end_s", "duration_s"} <= set(inj)
        scene = scenes[inj["target_scene_index"]]
        assert inj["target_scene"] == {k: scene[k] for k in ("index", "start_s", "end_s", "duration_s")}
        assert scene["start_s"] <= inj["start_s"] < inj["end_s"] <= scene["end_s"]
        assert p["source_file"] == Path(t.verifier_reference_urls[0]).name
    assert tasks[65].profile["sound"]["codec"] == "aac" and tasks[66].profile["sound"]["codec"] == "opus"
    assert tasks[65].profile["injection"]["windows"][0]["start_s"] == 4.0
    assert {"saturation", "contrast", "rr", "gg", "bb", "grade_name"} <= set(tasks[66].profile["injection"])
    assert {"noise_color", "noise_amplitude"} <= set(tasks[67].profile["injection"])


def _gray_frames(path: Path) -> list[np.ndarray]:
    return [f.image.astype(np.int16) for f in iter_frames(path, pix_fmt="bgr24")]


@pytest.mark.slow
def test_freeze_defect_is_real_and_confined_to_its_window(demo: DemoBenchmark) -> None:
    src = _gray_frames(demo.mirror / "repair/sources/demo1_source.mp4")
    broken = _gray_frames(demo.mirror / "repair/materials/65/broken.mp4")
    assert len(src) == len(broken) == 336
    a, b = 96, 132  # [4.0, 5.5) s at 24 fps
    diff = np.array([np.abs(x - y).mean() for x, y in zip(src, broken, strict=True)])
    assert diff[a:b].mean() > 8 and diff[:a].mean() < 2 and diff[b:].mean() < 2
    still = max(np.abs(broken[i + 1] - broken[i]).mean() for i in range(a, b - 1))
    moving = min(np.abs(src[i + 1] - src[i]).mean() for i in range(a, b - 1))
    assert still < moving / 2


@pytest.mark.slow
def test_colour_defect_is_real_and_confined_to_its_window(demo: DemoBenchmark) -> None:
    src = _gray_frames(demo.mirror / "repair/sources/demo2_source.mp4")
    broken = _gray_frames(demo.mirror / "repair/materials/66/broken.mp4")
    diff = np.array([np.abs(x - y).mean() for x, y in zip(src, broken, strict=True)])
    a, b = 110, 180  # [4.4, 7.2) s at 25 fps
    assert diff[a:b].min() > 10 and diff[:a].max() < 5 and diff[b:].max() < 5


def test_noise_defect_is_real_and_confined_to_its_window(demo: DemoBenchmark) -> None:
    sr = 48000
    src = decode_audio(demo.mirror / "repair/sources/demo2_source.mp4", sample_rate=sr)
    broken = decode_audio(demo.mirror / "repair/materials/67/broken.mp4", sample_rate=sr)
    n = min(len(src), len(broken))
    d = broken[:n] - src[:n]

    def rms(x: np.ndarray) -> float:
        return float(np.sqrt(np.mean(x**2)))

    inside, before, after = (
        rms(d[int(9.0 * sr) : int(11.0 * sr)]),
        rms(d[: int(8.5 * sr)]),
        rms(d[int(11.5 * sr) :]),
    )
    assert inside > 4 * max(before, after)
    assert probe(demo.mirror / "repair/materials/67/broken.mp4").audio.codec_name == "opus"


def test_zips_hold_the_clips_the_rubrics_name(demo: DemoBenchmark) -> None:
    tasks = _tasks(demo)
    for tid in (37, 38):
        names = zipfile.ZipFile(demo.mirror / f"sequencing/materials/{tid}.zip").namelist()
        assert names == [f"{i}.mp4" for i in range(1, tasks[tid].n_slots + 1)]
    for tid in (83, 84):
        with zipfile.ZipFile(demo.mirror / f"assembly/materials/{tid}.zip") as zf:
            assert sorted(zf.namelist(), key=lambda n: int(n[:-4])) == [f"{i}.mp4" for i in range(1, 13)]
            assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in zf.infolist())
    clips = tasks[83].materials()
    by_name = {p.name: p for p in clips}
    for name, dur in zip(
        tasks[83].correct_assembly_in_slot_order, tasks[83].correct_assembly_durations, strict=True
    ):
        info = probe(by_name[name])
        assert info.audio_streams == [] and info.duration == pytest.approx(dur, abs=0.05)
    assert probe(tasks[37].materials()[0]).audio is not None


def test_run_metadata_and_layout(demo: DemoBenchmark) -> None:
    for name, path in demo.runs.items():
        run = open_run(path)
        assert run.meta == RunMeta(harness="demo", model=name, rep=1)
    perfect = open_run(demo.runs["perfect"])
    assert sorted(perfect.task_folders) == [1, 2, 37, 38, 65, 66, 67, 83, 84]
    assert perfect.task_folders[37].name == "output" and perfect.task_folders[1].name == "output"
    assert 38 not in open_run(demo.runs["broken"]).task_folders


def _report_window(path: Path) -> tuple[str, str]:
    text = path.read_text()
    assert "## Diagnosis" in text and re.search(r"^- type: \S", text, re.M)
    return re.search(r"^- start: (.+)$", text, re.M).group(1), re.search(r"^- end: (.+)$", text, re.M).group(
        1
    )


def test_perfect_run_is_perfect(demo: DemoBenchmark) -> None:
    tasks = _tasks(demo)
    run = open_run(demo.runs["perfect"])
    for tid in (37, 38):
        sol = json.loads((run.task_folders[tid] / "solution.json").read_text())
        assert [s["source"] for s in sol["segments"]] == tasks[tid].correct_order
        assert (run.task_folders[tid] / "solution.mp4").is_file()
    for tid in (83, 84):
        sol = json.loads((run.task_folders[tid] / "solution.json").read_text())
        assert [s["source"] for s in sol["segments"]] == tasks[tid].correct_assembly_in_slot_order
    for spec in REPAIRS:
        folder = run.task_folders[spec.task_id]
        fixed, source = folder / "fixed.mp4", source_path(demo.mirror, spec.task_id)
        # the source losslessly re-encoded: a byte copy or a remux of the verifier-only source is malformed
        assert fixed.read_bytes() != source.read_bytes()
        assert [s.nb_frames for s in probe(fixed).streams] == [s.nb_frames for s in probe(source).streams]
        start, end = _report_window(folder / "report.md")
        assert start in (f"{spec.start:g}", f"0:{spec.start:05.2f}") and end in (
            f"{spec.end:g}",
            f"0:{spec.end:05.2f}",
        )
    for tid, (lo, hi) in ((1, (8, 16)), (2, (6, 12))):
        info = probe(run.task_folders[tid] / "final.mp4")
        assert lo <= info.duration <= hi and (info.video.width, info.video.height) == (320, 180)
        assert len(info.audio_streams) == 1 and info.video.codec_name == "h264"


def test_partial_run_is_partly_wrong(demo: DemoBenchmark) -> None:
    tasks = _tasks(demo)
    run = open_run(demo.runs["partial"])
    order = [
        s["source"] for s in json.loads((run.task_folders[37] / "solution.json").read_text())["segments"]
    ]
    truth = tasks[37].correct_order
    assert sorted(order) == sorted(truth) and order[:2] == truth[1::-1] and order[2:] == truth[2:]
    picks = [
        s["source"] for s in json.loads((run.task_folders[83] / "solution.json").read_text())["segments"]
    ]
    assert (
        picks[0] == "3"
        and sum(p == c for p, c in zip(picks, tasks[83].correct_assembly_in_slot_order, strict=True)) == 1
    )
    for spec in REPAIRS:
        folder = run.task_folders[spec.task_id]
        broken = demo.mirror / f"repair/materials/{spec.task_id}/broken.mp4"
        assert (folder / "fixed.mp4").read_bytes() == broken.read_bytes()
        start, end = _report_window(folder / "report.md")
        assert float(start) == spec.start + 0.5 and float(end) == spec.end + 0.5
    small = probe(run.task_folders[1] / "final.mp4").video
    assert (small.width, small.height) == (256, 144)
    quiet = decode_audio(run.task_folders[2] / "final.mp4", sample_rate=8000)
    assert np.abs(quiet[int(8.2 * 8000) : int(9.8 * 8000)]).max() < 1e-3  # the film's deliberate silence


def test_broken_run_is_broken_the_intended_way(demo: DemoBenchmark) -> None:
    root = demo.runs["broken"]
    with pytest.raises(json.JSONDecodeError):
        json.loads((root / "37/solution.json").read_text())
    assert not (root / "38").exists()
    assert isinstance(json.loads((root / "83/solution.json").read_text()), list)
    segments = json.loads((root / "84/solution.json").read_text())["segments"]
    assert any(isinstance(s, str) for s in segments) and any(isinstance(s, dict) for s in segments)
    truncated = (root / "65/fixed.mp4").read_bytes()
    given = (demo.mirror / "repair/materials/65/broken.mp4").read_bytes()  # the input, never the source
    assert len(truncated) == 4096 and given.startswith(truncated)
    assert not (root / "65/report.md").exists()
    with pytest.raises(MediaError):
        list(iter_frames(root / "65/fixed.mp4"))
    assert probe(root / "66/fixed.mp4").audio is None
    assert "- start: 4.4s" in (root / "66/report.md").read_text()
    assert (root / "67").is_dir() and not any((root / "67").iterdir())
    assert (root / "1/final.mp4").stat().st_size == 0
    assert not (root / "2/final.mp4").exists() and (root / "2/report.md").is_file()
