"""Demo sizes: how many tasks per family and how long / how large their media are.

`small` is the hand-written demo (2-3 tasks per family, clips of a few seconds at 320x180); its specs live in
the family modules and are used verbatim, so its build never changes. Every other size generates its specs
from the task id (seeded), with the real task counts and ids of AgenticVBench (36 recap, 28 sequencing,
18 repair, 18 assembly: ids 1-36, 37-64, 65-82, 83-100) and the durations and frame sizes given here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agenticvbench.errors import AVBError

#: The real number of tasks per family and the first task id of each family.
REAL_COUNTS: dict[str, int] = {"recap": 36, "sequencing": 28, "repair": 18, "assembly": 18}
FIRST_IDS: dict[str, int] = {"recap": 1, "sequencing": 37, "repair": 65, "assembly": 83}


@dataclass(kw_only=True, frozen=True)
class DemoSize:
    """One demo size. Durations are seconds, sizes are (width, height) pixels; ranges are (low, high).

    `recap_film_s`: length of each recap film; `repair_source_s`: length of each repair source
    (`repair_sources` sources, each shared by `repair_per_source` cells); `shot_s`: length of each sequencing
    shot and assembly take; `seq_shots` / `asm_slots`: shots per sequencing task, slots per assembly task.
    `preset` is the x264 preset; `workers` how many tasks are built at once.
    """

    name: str
    counts: tuple[int, int, int, int] = (36, 28, 18, 18)
    hand_written: bool = False
    recap_film_s: tuple[float, float] = (180.0, 360.0)
    recap_frame: tuple[int, int] = (1920, 1080)
    repair_source_s: tuple[float, float] = (90.0, 240.0)
    repair_frames: tuple[tuple[int, int], ...] = ((1280, 720), (1920, 1080))
    repair_per_source: int = 3
    clip_frame: tuple[int, int] = (1920, 1080)
    shot_s: tuple[float, float] = (3.0, 8.0)
    seq_shots: tuple[int, int] = (6, 12)
    asm_slots: tuple[int, int] = (4, 8)
    preset: str = "ultrafast"
    crf: int = 28
    workers: int = 2

    def ids(self, family: str) -> list[int]:
        """The task ids this size builds for `family` (the real ids, the first `count` of them)."""
        k = list(REAL_COUNTS).index(family)
        return list(range(FIRST_IDS[family], FIRST_IDS[family] + self.counts[k]))

    def first(self, n: int) -> DemoSize:
        """The same size restricted to the first `n` tasks of each family (to time a sample)."""
        if self.hand_written:
            raise AVBError(f"the {self.name} demo is hand-written and cannot be restricted")
        counts = tuple(min(n, c) for c in self.counts)
        return replace(self, name=f"{self.name}-first{n}", counts=counts)  # type: ignore[arg-type]


SMALL = DemoSize(name="small", counts=(2, 2, 3, 2), hand_written=True, preset="superfast", crf=30)
MEDIUM = DemoSize(
    name="medium",
    recap_film_s=(40.0, 80.0),
    recap_frame=(640, 360),
    repair_source_s=(30.0, 60.0),
    repair_frames=((640, 360), (854, 480)),
    clip_frame=(640, 360),
    shot_s=(2.0, 5.0),
    seq_shots=(5, 8),
    asm_slots=(4, 5),
    preset="superfast",
    crf=30,
)
FULL = DemoSize(name="full")
#: Real counts and layout with tiny media (2-s shots at 64x36): for tests of the full layout.
TINY = DemoSize(
    name="tiny",
    recap_film_s=(20.0, 24.0),
    recap_frame=(64, 36),
    repair_source_s=(12.0, 16.0),
    repair_frames=((64, 36),),
    clip_frame=(64, 36),
    shot_s=(2.0, 2.0),
    seq_shots=(3, 4),
    asm_slots=(2, 3),
    preset="ultrafast",
    crf=35,
)
SIZES: dict[str, DemoSize] = {s.name: s for s in (SMALL, MEDIUM, FULL, TINY)}


def get_size(name: str | DemoSize) -> DemoSize:
    """The size called `name` (`small`, `medium`, `full`, `tiny`); a `DemoSize` is returned as is."""
    if isinstance(name, DemoSize):
        return name
    try:
        return SIZES[name]
    except KeyError:
        raise AVBError(f"unknown demo size {name!r}; choose one of {', '.join(SIZES)}") from None
