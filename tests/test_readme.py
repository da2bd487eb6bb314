"""README stays true: its quickstart excerpt is what the commands print on a fresh demo, its Python example runs,
every `avb ...` line of README and docs/ parses with the real CLI parser, its links resolve, and the test command
CI runs is the one README shows."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from doc_examples import ELLIPSIS, Step, console_blocks, excerpt_mismatch, run_step

from agenticvbench.cli.main import build_parser
from agenticvbench.demo import DemoBenchmark

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The cache folder README shows (the Linux default); the tests substitute their own.
SHOWN_CACHE = "~/.cache/agenticvbench"


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert match, f"README has no '## {heading}' section"
    return match.group(1)


def _shell_lines(text: str) -> list[str]:
    """`avb ...` commands of the bash and console blocks (comments, `$ ` prompts and `[optional]` parts dropped,
    `<placeholder>` replaced by a word)."""
    lines = []
    for block in re.findall(r"```(?:bash|console)\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip().removeprefix("$ ")
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("avb ") or part == "avb":
                    part = re.sub(r"\s\[[^\]]*\]", "", part)
                    lines.append(re.sub(r"<[^>]*>", "X", part))
    return lines


#: Pages whose commands fail on purpose (tests/test_docs.py runs them and checks the errors they print).
ERROR_EXAMPLES = {"docs/guide/troubleshooting.md"}


def _doc_texts() -> dict[str, str]:
    pages = {"README.md": README}
    for path in sorted((ROOT / "docs").rglob("*.md")):
        name = path.relative_to(ROOT).as_posix()
        if name not in ERROR_EXAMPLES:
            pages[name] = path.read_text(encoding="utf-8")
    return pages


def quickstart_steps() -> list[Step]:
    """The quickstart's console block, as its steps."""
    blocks = console_blocks(_section(README, "Quickstart, offline"))
    assert len(blocks) == 1, "the quickstart has exactly one console block"
    return blocks[0]


def test_excerpt_matching_rejects_what_it_should() -> None:
    """The matcher itself: order, edges and the `...` gaps all count, so a drifted excerpt cannot pass."""
    out = ["a", "b", "c", "d"]
    assert excerpt_mismatch(["a", ELLIPSIS, "c", "d"], out) is None
    assert excerpt_mismatch([ELLIPSIS, "b", "c", ELLIPSIS], out) is None
    assert excerpt_mismatch(["b", ELLIPSIS], out) is not None  # the output starts with "a"
    assert excerpt_mismatch(["a", ELLIPSIS, "c"], out) is not None  # "d" follows
    assert excerpt_mismatch(["a", ELLIPSIS, "c", "b", ELLIPSIS], out) is not None  # order
    assert excerpt_mismatch(["a", ELLIPSIS, "x", ELLIPSIS], out) is not None


@pytest.mark.slow
def test_quickstart_excerpt_matches_a_fresh_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The front door cannot drift: the quickstart's commands run as shown (from a cache with no demo in it) and
    print the shown lines, numbers included; the cache path is the only thing substituted."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("AVB_CACHE", str(cache))
    steps = quickstart_steps()
    assert steps[0].command == "avb demo" and len(steps) >= 2
    for step in steps:
        code, printed = run_step(step, capsys, monkeypatch, {SHOWN_CACHE: str(cache)})
        assert code == 0, (step.command, printed[-5:])
        problem = excerpt_mismatch(step.shown, printed)
        assert problem is None, f"`{step.command}`: {problem}\n--- printed ---\n" + "\n".join(printed)


@pytest.mark.slow
def test_readme_python_example_runs(
    demo: DemoBenchmark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README's Python example runs as written against the demo (its dataset path and run folder substituted)."""
    code = re.search(r"```python\n(.*?)```", _section(README, "From Python"), flags=re.S)
    assert code
    run = tmp_path / "runs" / "my-agent"
    shutil.copytree(demo.runs["partial"], run, ignore=shutil.ignore_patterns("avb-results"))
    monkeypatch.chdir(tmp_path)
    source = code.group(1).replace("/data/AgenticVBench_100", str(demo.mirror))
    assert str(demo.mirror) in source
    namespace: dict[str, object] = {}
    exec(compile(source, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    assert (run / "avb-results" / "65.json").is_file()
    assert len(namespace["df"]) == 9  # type: ignore[arg-type]


def test_readme_is_a_front_door() -> None:
    """README stays short and keeps what a newcomer needs first: install from a clone (not on PyPI yet), the
    offline quickstart, the run-directory table per family, a Python example and the "I want to..." table."""
    assert len(README) <= 8500, len(README)
    assert "not yet published on PyPI" in README
    install = re.findall(r"^```bash\n(.*?)^```$", _section(README, "Install"), flags=re.S | re.M)
    assert [line.split("  #")[0].strip() for line in install[0].splitlines()] == [
        "python -m venv .venv && . .venv/bin/activate && pip install -e . && avb demo"
    ], "the install is one command from a fresh clone, ending in the offline demo"
    assert "$ avb demo" in _section(README, "Quickstart, offline")
    table = _section(README, "Your agent's run directory")
    for family, files in (
        ("recap", "final.mp4"),
        ("sequencing", "solution.json"),
        ("repair", "report.md"),
        ("assembly", "solution.json"),
    ):
        assert re.search(rf"^\| {family} \|[^\n]*`{re.escape(files)}`", table, flags=re.M), family
    assert "| I want to... |" in _section(README, "I want to...")


def test_readme_links_resolve() -> None:
    """Every relative link of README points at a file of the repository (the site build checks docs/ itself)."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing


def test_every_documented_cli_example_parses() -> None:
    """Every `avb ...` line in README and docs/ parses with the real parser and reaches a command."""
    parser = build_parser()
    lines = [(name, line) for name, text in _doc_texts().items() for line in _shell_lines(text)]
    assert len(lines) >= 30
    for name, line in lines:
        try:
            args = parser.parse_args(shlex.split(line)[1:])
        except SystemExit:
            pytest.fail(f"{name}: `{line}` does not parse")
        assert callable(getattr(args, "func", None)), (name, line)


def test_readme_development_section_names_the_test_command() -> None:
    """README's Development section holds the one setup-and-test command (tests/test_ci.py checks that CI runs it
    verbatim and what it runs) and points at CONTRIBUTING.md for the rest."""
    dev = _section(README, "Development")
    assert "\nscripts/dev-setup-and-test " in dev and "CONTRIBUTING.md" in dev
    assert (ROOT / "scripts" / "dev-setup-and-test").is_file()
