"""Progress of the commands' long steps: no silent minute.

Every step that can take more than a few seconds (scoring in `avb demo`, `verify`, `baselines`, and in `report` /
`leaderboard` when they score the floor; building the demo; the wheel `avb harbor export` bakes; `avb download`)
shows one of:

- on a terminal (stderr), or with `--progress`: a tqdm bar, redrawn every second so its clock moves even while
  one long task runs;
- otherwise (a log file, CI, a pipe): a heartbeat line on stderr at least every `HEARTBEAT_S` seconds while the
  step runs, `avb: scoring: 4/27 task(s) done, 16 s` (nothing for a step shorter than that);
- with `-q`: nothing.

`progress_mode(args)` decides; `Progress` is the one display; `progress_factory(args, desc)` is what the scoring
engine takes (`verify_run(progress=...)`: called with the number of jobs, it returns a `Progress`).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

#: Outside a terminal, a heartbeat line at least this often (seconds) while a long step runs.
HEARTBEAT_S = 8.0
#: On a terminal, the bar is redrawn this often (seconds), so its elapsed time moves during one long task.
REDRAW_S = 1.0

Mode = Literal["bar", "lines", "off"]


def progress_mode(args: argparse.Namespace) -> Mode:
    """`off` with `-q`; `bar` with `--progress` or on a terminal (stderr) unless the output is JSON; else
    `lines` (heartbeats on stderr)."""
    if getattr(args, "quiet", False):
        return "off"
    if getattr(args, "progress", False):
        return "bar"
    json_out = getattr(args, "json", False) or getattr(args, "format", None) == "json"
    return "bar" if sys.stderr.isatty() and not json_out else "lines"


def _write(line: str) -> None:
    """One heartbeat line on the current stderr."""
    print(line, file=sys.stderr, flush=True)


class Progress:
    """A long step's display (see the module docstring): `update(n)` as items finish, `close()` at the end (or use
    it as a context manager). `total` None: a step with no count (only its elapsed time is shown). Has the part of
    tqdm's interface the scoring engine uses (`update`, `set_postfix_str`, `close`)."""

    def __init__(
        self,
        mode: Mode,
        desc: str,
        total: int | None = None,
        unit: str = "task",
        every: float | None = None,
    ) -> None:
        self.mode, self.desc, self.total, self.unit = mode, desc, total, unit
        self.every = HEARTBEAT_S if every is None else every
        self.n = 0
        self.postfix = ""
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._bar: Any = None
        self._thread: threading.Thread | None = None
        if mode == "off":
            return
        if mode == "bar":
            from tqdm import tqdm

            fmt = None if total is not None else "{desc}: {elapsed}{postfix}"
            self._bar = tqdm(
                total=total, desc=desc, unit=unit, dynamic_ncols=True, file=sys.stderr, bar_format=fmt
            )
        self._thread = threading.Thread(target=self._tick, name=f"avb-progress-{desc}", daemon=True)
        self._thread.start()

    def heartbeat_line(self) -> str:
        """What a heartbeat says now."""
        elapsed = time.monotonic() - self.started
        if self.total is None:
            done = "still running"
        else:
            done = f"{self.n}/{self.total} {self.unit}(s) done"
        tail = f"; last: {self.postfix}" if self.postfix else ""
        return f"avb: {self.desc}: {done}, {elapsed:.0f} s{tail}"

    def _tick(self) -> None:
        wait = REDRAW_S if self.mode == "bar" else self.every
        while not self._stop.wait(wait):
            with self._lock:
                if self._stop.is_set():
                    return
                if self._bar is not None:
                    self._bar.refresh()
                else:
                    _write(self.heartbeat_line())

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.n += n
            if self._bar is not None:
                self._bar.update(n)

    def set_postfix_str(self, text: str, refresh: bool = False) -> None:
        with self._lock:
            self.postfix = text
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=refresh)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_factory(args: argparse.Namespace, desc: str = "scoring") -> Callable[[int], Progress]:
    """What `verify_run(progress=...)` takes: called with the number of jobs, a `Progress` in `args`' mode."""
    mode = progress_mode(args)
    return lambda total: Progress(mode, desc, total)


def long_step(args: argparse.Namespace, desc: str) -> Progress:
    """A `Progress` without a count, for one long call (`with long_step(args, "building the wheel"): ...`)."""
    return Progress(progress_mode(args), desc)
