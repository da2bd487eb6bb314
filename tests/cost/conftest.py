"""Run directories with a `usage` block in run.json, written by hand (as `avb harbor import` writes them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture()
def make_run(tmp_path: Path) -> Callable[..., Path]:
    """make_run(name, harness, model, rep, {task_id: tokens-or-None-or-raw}) -> run directory; a task mapped to
    None has a folder and no usage (a missing trial)."""

    def make(name: str, harness: str, model: str, rep: int, usage: dict[int, Any], **extra: Any) -> Path:
        run = tmp_path / name
        run.mkdir()
        block = {}
        for tid, tok in usage.items():
            (run / str(tid)).mkdir()
            if tok is not None:
                block[str(tid)] = tok if "tokens" in tok else {"tokens": tok, "by_model": {}}
        doc = {"harness": harness, "model": model, "rep": rep, "usage": block, **extra}
        (run / "run.json").write_text(json.dumps(doc))
        return run

    return make
