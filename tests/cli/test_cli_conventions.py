"""One grammar across the CLI: every subcommand's help opens with a description stating its exit codes, every
command takes `-q`, every `--format` that offers json also takes `--json` (and the reverse), errors are one line
(a usage error named after the command typed, as argparse names its own: `avb power: error:`; the others
`avb: error:`), and `-q` shortens what it promises to.

A new user found `tasks`, `score`, `demo`, `grade`, `gold`, `judge agree` and every `harbor` subcommand with no
description, `-q` changing nothing on `leaderboard`, `--json` here and `--format` there, and `avb report --format
all` without `--out` failing in its own wording.
"""

from __future__ import annotations

import json

from agenticvbench.cli.descriptions import subparsers, walk
from agenticvbench.cli.main import EXIT_USAGE, build_parser, main
from agenticvbench.results.model import Result


def _options(p) -> set[str]:
    return {o for a in p._actions for o in a.option_strings}


def test_every_subcommand_has_a_description_with_exit_codes():
    """Walk the whole `avb --help` tree: each subcommand's help has a description paragraph and says its exit
    codes (in the description or the epilog)."""
    tree = walk(build_parser())
    assert len(tree) >= 35
    lacking = []
    for path, p in tree:
        text = " ".join(p.format_help().split())
        if not (p.description and p.description.strip()):
            lacking.append(f"{' '.join(path)}: no description")
        if "exit code" not in text.lower():
            lacking.append(f"{' '.join(path)}: no exit codes")
    assert not lacking, "\n".join(lacking)


def test_every_command_takes_quiet_and_json_goes_with_format():
    """Each runnable command accepts -q/-v; `--json` exists exactly where a json `--format` does."""
    problems = []
    for path, p in walk(build_parser()):
        runs = not subparsers(p) or p.get_default("func") is not None
        opts = _options(p)
        if runs and not {"-q", "-v"} <= opts:
            problems.append(f"{' '.join(path)}: no -q/-v")
        fmt = next((a for a in p._actions if "--format" in a.option_strings), None)
        if fmt is not None and "json" in (fmt.choices or ()) and "--json" not in opts:
            problems.append(f"{' '.join(path)}: --format json without --json")
        if "--json" in opts and fmt is None:
            problems.append(f"{' '.join(path)}: --json without --format")
    assert not problems, "\n".join(problems)


def test_every_option_and_argument_has_help_text():
    """Walk every parser of the tree (the top level too): each option and positional has a help line (or is
    hidden on purpose with SUPPRESS). `avb verify --executor`, `avb harbor reward --family` and the RUN_DIR /
    JOB_DIR / TASK_ID positionals of several commands printed a bare name in --help."""
    import argparse

    parser = build_parser()
    bare = [
        f"{' '.join(path) or 'avb'}: {'/'.join(a.option_strings) or a.dest}"
        for path, p in [((), parser), *walk(parser)]
        for a in p._actions
        if not isinstance(a, argparse._SubParsersAction) and not (a.help and a.help.strip())
    ]
    assert not bare, "\n".join(bare)


def test_json_alias_prints_what_format_json_prints(seq_mirror, capsys):
    """`--json` is `--format json`, byte for byte; `--format csv` and `md` list the same tasks."""
    assert main(["tasks", "--dataset", str(seq_mirror), "--json"]) == 0
    alias = capsys.readouterr().out
    assert main(["tasks", "--dataset", str(seq_mirror), "--format", "json"]) == 0
    assert capsys.readouterr().out == alias
    ids = [d["task_id"] for d in json.loads(alias)]
    assert main(["tasks", "--dataset", str(seq_mirror), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "task_id,task_family,prompt,n_materials" and len(lines) == len(ids) + 1
    assert main(["tasks", "--dataset", str(seq_mirror), "--format", "md"]) == 0
    assert capsys.readouterr().out.count("\n| 3") == sum(1 for i in ids if str(i).startswith("3"))


def test_report_format_all_without_out_is_a_one_line_usage_error(seq_mirror, seq_run, tmp_path, capsys):
    """`avb report --format all` without --out: exit 2 and one `avb report: error:` line naming the fix (it used
    to print `avb report: ...` without `error:`, against the convention the troubleshooting page states)."""
    run = seq_run("a", {37: ["1", "2", "3"]})
    cache = str(tmp_path / "c")
    main(["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "-q"])
    capsys.readouterr()
    assert main(["report", str(run), "--format", "all", "--no-floor"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("avb report: error: ") and "--out DIR" in err[0]
    assert main(["leaderboard", str(run), "--resamples", "-1"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("avb leaderboard: error: --resamples")


def test_quiet_leaderboard_and_report_print_only_the_table(seq_mirror, seq_run, tmp_path, capsys):
    """`-q` on `leaderboard` prints the table alone (no caption, no notes) and on `report` the headline summary;
    without -q both keep their caption and notes."""
    run = seq_run("a", {37: ["1", "2", "3"], 38: ["3", "1", "2"]})
    cache = str(tmp_path / "c")
    main(["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "-q"])
    capsys.readouterr()
    base = ["leaderboard", str(run), "--no-floor", "--resamples", "0"]
    assert main(base) == 0
    full = capsys.readouterr().out
    assert main([*base, "-q"]) == 0
    quiet = capsys.readouterr().out
    assert "Per family: mean headline score" in full and "Per family" not in quiet
    assert [ln for ln in quiet.splitlines() if ln.startswith("|")] == [
        ln for ln in full.splitlines() if ln.startswith("|")
    ]
    assert all(ln.startswith("|") for ln in quiet.strip().splitlines())
    assert main(["report", str(run), "--no-floor", "--resamples", "0"]) == 0
    long = capsys.readouterr().out
    assert main(["report", str(run), "--no-floor", "--resamples", "0", "-q"]) == 0
    short = capsys.readouterr().out
    assert short.startswith("Headline") and len(short) < len(long)


def test_quiet_compare_and_power_print_only_the_result(seq_mirror, seq_run, tmp_path, capsys):
    """`-q` means only the result everywhere: `avb compare -q` printed its whole caption and `avb power -q` its
    notes. Now compare keeps the table and the line naming A and B, power the table alone, and nothing goes to
    stderr; without -q both keep caption and notes, power's naming the family mix its MDD at 100 tasks assumes."""
    cache = str(tmp_path / "c")
    a = seq_run("a", {37: ["1", "2", "3"], 38: ["3", "1", "2"]}, {"harness": "h", "model": "a"})
    b = seq_run("b", {37: ["3", "2", "1"], 38: ["1", "2", "3"]}, {"harness": "h", "model": "b"})
    for run in (a, b):
        main(["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "-q"])
    capsys.readouterr()
    for command, kept in (("compare", ["A = h/a (1 run(s)), B = h/b (1 run(s))."]), ("power", [])):
        assert main([command, str(a), str(b), "--dataset", str(seq_mirror)]) == 0
        full = capsys.readouterr().out
        assert main([command, str(a), str(b), "--dataset", str(seq_mirror), "-q"]) == 0
        out = capsys.readouterr()
        table = [ln for ln in full.splitlines() if ln.startswith("|")]
        assert out.out.strip().splitlines() == table + ([""] + kept if kept else []), command
        assert out.err == "" and len(full) > len(out.out) + 200, command  # the caption and notes went
        if command == "power":
            assert (
                "MDD at 100 tasks assumes the observed family mix (sequencing 3, repair 1) scaled up" in full
            )
            assert "(recap 36, sequencing 28, repair 18, assembly 18)" in full


def test_explain_never_puts_scored_beside_reason_malformed():
    """An assembly answer with 1 of 4 segments: the official scorer reports `malformed: ...` and scores it 0, so
    the result is `scored`. `avb explain` showed `scored` and `reason: malformed` together; now the message is
    the scorer's note, saying the task counts as scored."""
    from agenticvbench.analysis.explain import explain_result, lost_points

    r = Result(
        task_id=83,
        family="assembly",
        status="scored",
        final_score=0.0,
        headline_score=0.0,
        reason="malformed: expected 4 segments, got 1",
        run={"path": "/r/o", "harness": "h", "model": "m", "rep": 1},
    )
    text = explain_result(r).to_text()
    assert "reason: malformed" not in text and ": scored," in text
    assert "official scorer's message 'malformed: expected 4 segments, got 1'" in text
    assert "counts as scored" in text
    assert not any(line.startswith("note: malformed") for line in lost_points(r))
    bad = Result(
        task_id=83, family="assembly", status="malformed", reason="solution.json: not JSON", run=r.run
    )
    assert "reason: solution.json: not JSON" in explain_result(bad).to_text()


def test_dataset_means_the_dataset_on_every_command_that_reads_results() -> None:
    """`--dataset` had three meanings (the tasks to count, where clusters come from, what to load); on every
    command that reads results it is now one option from one helper: the dataset the results were scored
    against, defaulting to the local dataset they name, with `--revision` and `--no-cluster` beside it."""
    from agenticvbench.cli.main import build_parser
    from agenticvbench.cli.reference import iter_commands

    helps = {}
    for cmd in iter_commands(build_parser()):
        if cmd.name in ("avb report", "avb leaderboard", "avb compare", "avb power", "avb view"):
            opts = {o: a for a in cmd.parser._actions for o in a.option_strings}
            assert "--revision" in opts and "--no-cluster" in opts, cmd.name
            helps[cmd.name] = opts["--dataset"].help
    assert len(helps) == 5
    first = {h.split(";")[0] for h in helps.values()}
    assert first == {
        "the dataset the results were scored against: Hub id, local mirror or parquet (default: the local "
        "dataset the results name)"
    }
    assert (
        helps["avb report"] == helps["avb leaderboard"]
        and "every one of its tasks counts" in helps["avb report"]
    )
    assert helps["avb compare"] == helps["avb power"] == helps["avb view"]


def test_a_usage_error_a_command_finds_names_the_command(make_run, seq_mirror, tmp_path, capsys):
    """argparse's usage errors read `avb power: error: ...`; the ones a command found itself read `avb: error:`
    (`avb power` with no runs, with three stacks), `avb power: ...` or `avb compare: ...` without `error:`. Every
    usage error is now one line, exit 2, named after the command typed, whichever found it."""
    runs = [str(make_run(n, {37: ("sequencing", 0.5), 38: ("sequencing", 0.2)}, harness=n)) for n in "abc"]
    prices = tmp_path / "prices.json"
    prices.write_text('{"models": 5}')
    (tmp_path / "a" / "37").mkdir()  # a task folder: what `avb verify` checks before its options
    cases = {
        "avb power": [["power"], ["power", *runs], ["power", "--sd", "0"], ["power", "--bogus"]],
        "avb compare": [
            ["compare", *runs[:2], "--permutations", "0"],
            ["compare", *runs[:2], "--cluster", "--no-cluster"],
        ],
        "avb cost": [["cost", runs[0], "--prices", str(prices)]],
        "avb verify": [["verify", runs[0], "--dataset", str(seq_mirror), "--executor", "dask"]],
        "avb leaderboard": [["leaderboard", runs[0], "--resamples", "-1"]],
    }
    for prog, argvs in cases.items():
        for argv in argvs:
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's own (the reference every line must read like)
                code = exc.code
            err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("usage:")]
            err = [line for line in err if line.startswith("avb")]
            assert code == EXIT_USAGE and len(err) == 1 and err[0].startswith(f"{prog}: error: "), (argv, err)
