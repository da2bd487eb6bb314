"""Harbor's commands live under one noun, `avb harbor ...`; the older spellings keep working for a release."""

from __future__ import annotations

import json

from agenticvbench.cli.main import build_parser, main
from agenticvbench.cli.reference import documented_actions, iter_commands


def _options(name: str) -> list[tuple[str, ...]]:
    (cmd,) = [c for c in iter_commands(build_parser()) if c.name == f"avb {name}"]
    return sorted(tuple(a.option_strings) or (str(a.dest),) for a in documented_actions(cmd.parser))


def test_grouped_and_older_spellings_take_the_same_options() -> None:
    """`avb harbor export|import|gold` are the same commands as `avb export harbor`, `avb import harbor` and
    `avb gold`: one definition of the options, so the two spellings cannot drift apart."""
    assert _options("harbor export") == _options("export harbor")
    assert _options("harbor import") == _options("import harbor")
    assert _options("harbor gold") == _options("gold")


def test_harbor_gold_writes_the_gold_run(demo, tmp_path) -> None:
    """The grouped spelling runs the real command: gold outputs of the demo's sequencing tasks."""
    out = tmp_path / "gold"
    assert (
        main(["harbor", "gold", "--out", str(out), "--dataset", str(demo.mirror), "--family", "sequencing"])
        == 0
    )
    manifests = sorted(out.glob("*/solution.json"))
    assert manifests and all(json.loads(m.read_text())["segments"] for m in manifests)
