"""One strict reader for run.json's `usage` block and the `--prices` file: hostile values are notes naming the run,
the trial and the field (never a traceback, never summed), a bad price file is one line and exit 2, JSON output is
strict, CSV cells cannot run formulas, and an empty table says why."""

from __future__ import annotations

import csv
import io
import json

import pytest
from cost_helpers import tokens

from agenticvbench.cli.main import main


def _strict(text: str) -> dict:
    """Parse JSON refusing NaN and Infinity (Python's json accepts them by default)."""

    def bad(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=bad)


def _err_lines(capsys) -> tuple[str, list[str]]:
    cap = capsys.readouterr()
    return cap.out, cap.err.strip().splitlines()


def test_bad_token_counts_are_dropped_with_a_note_naming_trial_and_field(make_run, capsys):
    """ "12abc", a float 1e300 and an integer 10**300 are not token counts: each is a note naming run.json, the
    task and the field, and is never summed (it used to crash on "12abc" and sum 1e300)."""
    good = tokens(1000, 0, 0, 10)
    bad = {
        **tokens(0, 0, 0, 5),
        "input_tokens": "12abc",
        "cache_read_tokens": 1e300,
        "output_tokens": 10**300,
    }
    run = make_run("r", "claude-code", "claude-opus-4-7", 1, {1: good, 2: bad})
    assert main(["cost", str(run), "--format", "json"]) == 0
    out, err = _err_lines(capsys)
    doc = _strict(out)
    row = next(r for r in doc["rows"] if r["slice"] == "all")
    assert row["tokens"] == {
        "input_tokens": 1000,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "output_tokens": 10,
    }
    assert row["cost_usd"] == pytest.approx((1000 * 5 + 10 * 25) / 1e6)
    for field in (
        "usage.2.tokens.input_tokens",
        "usage.2.tokens.cache_read_tokens",
        "usage.2.tokens.output_tokens",
    ):
        assert any(f"{run / 'run.json'}: {field}: not a token count" in line for line in err), (field, err)


def test_a_usage_key_that_is_not_a_task_id_is_a_note(make_run, tmp_path, capsys):
    """A usage key "²" (a digit to str.isdigit, not to int) and a task folder named "³" are notes, not a
    traceback; the real task still counts."""
    run = make_run("r", "claude-code", "claude-opus-4-7", 1, {3: tokens(10, 0, 0, 1)})
    doc = json.loads((run / "run.json").read_text())
    doc["usage"]["²"] = {"tokens": tokens(99, 0, 0, 9)}
    doc["usage"]["x" * 5000 + "\n"] = {}
    (run / "run.json").write_text(json.dumps(doc))
    (run / "³").mkdir()
    assert main(["cost", str(run), "--format", "json"]) == 0
    out, err = _err_lines(capsys)
    rows = _strict(out)["rows"]
    assert [(r["slice"], r["trials"], r["tokens"]["input_tokens"]) for r in rows] == [
        ("recap", 1, 10),
        ("all", 1, 10),
    ]
    assert any("usage: key '²' is not a task id" in line for line in err)
    assert all(len(line) < 400 for line in err)


@pytest.mark.parametrize(
    "entry, field",
    [
        ({"tokens": "lots"}, "usage.1.tokens: not an object"),
        ({"tokens": tokens(1, 0, 0, 1), "by_model": 7}, "usage.1.by_model: not an object"),
        ({"tokens": {**tokens(1, 0, 0, 1), "cost_usd": "free"}}, "usage.1.tokens.cost_usd: not a cost"),
        ({"tokens": tokens(1, 0, 0, 1), "errored": "yes"}, "usage.1.errored: not true/false"),
        (
            {"tokens": tokens(1, 0, 0, 1), "by_model": {"m": {"input_tokens": -4}}},
            "usage.1.by_model.m.input_tokens",
        ),
    ],
)
def test_each_bad_field_is_one_note(make_run, capsys, entry, field):
    """Wrong types anywhere in a usage entry: a one-line note naming the field; the command still succeeds."""
    run = make_run("r", "h", "claude-opus-4-7", 1, {1: entry})
    assert main(["cost", str(run)]) == 0
    _, err = _err_lines(capsys)
    assert any(field in line for line in err), err


def test_json_output_is_strict(make_run, capsys):
    """Reported costs of NaN and 1e308 (Python's json reads both) are dropped with a note: the JSON output has
    no NaN or Infinity (two 1e308 used to sum to Infinity)."""
    a = {"tokens": {**tokens(1, 0, 0, 1), "cost_usd": 1e308}}
    b = {"tokens": {**tokens(1, 0, 0, 1), "cost_usd": 1e308}}
    run = make_run("r", "h", "claude-opus-4-7", 1, {1: a, 2: b})
    text = json.loads((run / "run.json").read_text())
    text["usage"]["3"] = {"tokens": {**tokens(1, 0, 0, 1), "cost_usd": float("nan")}}
    (run / "run.json").write_text(json.dumps(text))  # writes NaN, as a careless writer would
    (run / "3").mkdir()
    assert main(["cost", str(run), "--format", "json"]) == 0
    out, err = _err_lines(capsys)
    row = next(r for r in _strict(out)["rows"] if r["slice"] == "all")
    assert row["reported_cost_usd"] is None and row["extracted"] == 3
    assert sum("not a cost in USD" in line for line in err) == 3


def test_csv_cells_cannot_run_formulas(make_run, capsys):
    """A harness '=HYPERLINK(...)' and a model '@SUM(1)' reach the CSV defused (a leading quote), as every other
    cell; the numbers stay numbers."""
    run = make_run("r", '=HYPERLINK("http://x","y")', "@SUM(1)+claude-opus-4-7", 1, {1: tokens(10, 0, 0, 1)})
    assert main(["cost", str(run), "--format", "csv"]) == 0
    out, _ = _err_lines(capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all(r["harness"].startswith("'=") and r["model"].startswith("'@") for r in rows)
    assert rows[-1]["input_tokens"] == "10"


def test_an_empty_table_says_why(make_run, tmp_path, capsys):
    """Runs scored from task folders, never imported from Harbor (no usage block): the output says so instead of
    printing rows of zeros, in md, json and the paper's layout."""
    run = tmp_path / "plain"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"harness": "h", "model": "m", "rep": 1}))
    for tid in (1, 40, 70):
        (run / str(tid)).mkdir()
    assert main(["cost", str(run)]) == 0
    out, err = _err_lines(capsys)
    assert out.startswith("No cost table: no trial has usage: these runs were not imported from Harbor")
    assert "| 0 |" not in out and not any("no trial has usage" in line for line in err), err  # said once
    written = tmp_path / "cost.md"
    assert main(["cost", str(run), "--out", str(written)]) == 0
    out, err = _err_lines(capsys)
    assert written.read_text().startswith("No cost table:") and "no trial has usage" not in out
    assert len([line for line in err if "not imported from Harbor" in line]) == 1
    assert main(["cost", str(run), "--format", "json"]) == 0
    out, err = _err_lines(capsys)
    doc = _strict(out)
    assert doc["rows"] == [] and "3 trial(s)" in doc["empty_reason"]
    # a person reading a pipe sees why
    assert len([line for line in err if "not imported from Harbor" in line]) == 1
    assert main(["cost", str(run), "--paper"]) == 0
    assert capsys.readouterr().out.startswith("No cost table:")


def test_an_empty_csv_is_a_header_and_says_why_on_stderr(make_run, tmp_path, capsys):
    """`--format csv` with no usage printed one empty line and no note (exit 0) while md and latex say "No cost
    table: ...": stdout is now the CSV's header row alone, with the same columns as a full table, and stderr
    carries md's sentence, once."""
    from agenticvbench.cost.table import CSV_FIELDS

    run = tmp_path / "plain"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"harness": "h", "model": "m", "rep": 1}))
    (run / "1").mkdir()
    assert main(["cost", str(run)]) == 0
    sentence = capsys.readouterr().out.splitlines()[0]
    assert sentence.startswith("No cost table: no trial has usage")
    assert main(["cost", str(run), "--format", "csv"]) == 0
    out, err = _err_lines(capsys)
    assert list(csv.reader(io.StringIO(out))) == [list(CSV_FIELDS)]
    assert [line.split(": ", 2)[-1] for line in err if "No cost table" in line] == [sentence], err
    full = make_run("r", "h", "m", 1, {1: tokens(10, 0, 0, 1)})
    assert main(["cost", str(full), "--format", "csv"]) == 0
    assert next(csv.reader(io.StringIO(capsys.readouterr().out))) == list(CSV_FIELDS)


def _prices(tmp_path, models: dict, **top) -> str:
    p = tmp_path / "prices.json"
    p.write_text(json.dumps({"version": "lab", "models": models, **top}))
    return str(p)


OK = {"input": 1, "cache_read": 0.1, "cache_write": 1, "output": 2}


@pytest.mark.parametrize(
    "models, top, field",
    [
        ({"m": {**OK, "aliases": 5}}, {}, "field 'models.m.aliases' must be a list"),
        ({"m": {**OK, "aliases": ["ok", 3]}}, {}, "field 'models.m.aliases[1]'"),
        ({"m": {**OK, "cached_input": 0.1}}, {}, "field 'models.m.cached_input' is not a price field"),
        ({"m": {**OK, "output": float("nan")}}, {}, "field 'models.m.output'"),
        ({"m": {**OK, "output": 1e300}}, {}, "field 'models.m.output'"),
        ({"m\nforged": OK}, {}, "must be a model id"),
        ({"m": {**OK, "aliases": ["x"]}, "n": {**OK, "aliases": ["x"]}}, {}, "already an alias of 'm'"),
        ({"m": OK}, {"currency": "EUR"}, "field 'currency'"),
        ({"m": OK}, {"sources": {"s": {"where": 5}}}, "field 'sources.s'"),
        ({}, {}, "field 'models'"),
    ],
)
def test_a_bad_price_file_is_one_line_and_exit_2(make_run, tmp_path, capsys, models, top, field):
    """`--prices` through the one declared schema: `aliases: 5` and every other malformed field is one line on
    stderr naming the file and the field, and exit 2 (it used to be a traceback)."""
    run = make_run("r", "h", "m", 1, {1: tokens(1, 0, 0, 1)})
    path = _prices(tmp_path, models, **top)
    assert main(["cost", str(run), "--prices", path]) == 2
    _, err = _err_lines(capsys)
    assert len(err) == 1 and err[0].startswith(f"avb cost: error: {path}") and field in err[0], err


def test_markdown_caption_and_notes_carry_no_raw_html(make_run, tmp_path, capsys):
    """A price file's version '<img src=x onerror=alert(1)>' reaches the Markdown caption neutralised, and a
    model named with markup reaches the unpriced note neutralised."""
    run = make_run("r", "h", "<b>m</b>", 1, {1: tokens(1, 0, 0, 1)})
    path = _prices(tmp_path, {"m": OK})
    doc = json.loads(open(path).read())
    doc["version"] = "<img src=x onerror=alert(1)>"
    open(path, "w").write(json.dumps(doc))
    assert main(["cost", str(run), "--prices", path]) == 0
    out = capsys.readouterr().out
    assert "<img" not in out and "<b>" not in out and "&lt;img src=x" in out
