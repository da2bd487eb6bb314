"""What each subcommand's `--help` opens with, and the options every command shares.

`build_parser` calls `finish_tree` after every command module registered: a parser without a description gets its
entry of `DESCRIPTIONS`; one whose description does not state its exit codes gets the entry as its epilog; every
command that runs something gets `-v/-q` (`common.add_verbosity_args`) if its module did not add them, and every
`--format` that offers json gets `--json` as its alias. A test walks
the whole `avb --help` tree and fails when a command has no description or no exit codes.
"""

from __future__ import annotations

import argparse

#: The convention every command follows (`main`'s exit codes), for commands with nothing more specific to say.
STANDARD_EXITS = (
    "Exit codes: 0 ok; 2 usage error (bad option or setting); 3 dataset, task, run-directory or file error "
    "(one line on stderr, no traceback: `avb COMMAND: error:` for a usage error, as argparse names it, "
    "`avb: error:` for the others)."
)
GROUP_EXITS = "Exit codes: those of the subcommand; 2 when none or an unknown one is given."

#: command path -> description (with its exit codes)
DESCRIPTIONS: dict[tuple[str, ...], str] = {
    ("tasks",): "List the dataset's tasks (id, family, number of material URLs, prompt), filtered with "
    "--family/--tasks/--limit; `avb tasks show ID` prints one task. " + STANDARD_EXITS,
    ("tasks", "show"): "Print one task as JSON: prompt, material URLs (and where they are on disk for a "
    "local mirror) and the rubric's public keys; the answers (correct order, repair cell and profile, recap "
    "checks) are named under `hidden`, and printed under `answers` only with --with-answers. Never give "
    "them to an agent. " + STANDARD_EXITS,
    ("download",): STANDARD_EXITS,
    ("explain",): "Exit codes: 0 ok; 2 usage error; 3 the run has no result for the task (the message says "
    "why: not scored yet, no such folder, unreadable result).",
    ("score",): "Score one task's output exactly as the official per-task CLIs do (same arguments, same "
    "JSON, same exit codes); one subcommand per family. For whole runs use `avb verify`. " + GROUP_EXITS,
    ("score", "sequencing"): "The official avb-score-sequencing: read solution.json, compare its clip order "
    "with the task's correct order (from the dataset, or --correct-order), print the official JSON. Exit "
    "codes: 0 scored; 1 the JSON's `error` is non-empty (unreadable or malformed solution); 2 usage error; "
    "3 dataset error.",
    ("score", "assembly"): "The official avb-score-assembly: read solution.json, compare its candidate per "
    "slot with the task's correct assembly (from the dataset, or --correct-assembly), print the official "
    "JSON. Exit codes: 0 scored; 1 the JSON's `error` is non-empty; 2 usage error; 3 dataset error.",
    ("score", "repair"): "Exit codes: 0 scored (a missing fixed.mp4 or report.md scores 0, as the official "
    "scorer does, with a warning on stderr); 1 the JSON's `error` is non-empty; 2 usage error (--source-mp4 "
    "missing with --cell/--profile); 3 dataset error.",
    ("score", "recap"): "Score one recap final.mp4 against a task's rubric (or --rubric FILE): python "
    "checks, and llm items with the judge if one is configured (else they are unscored). Prints the public "
    "recap CLI's JSON plus `unscored`, `status` and `warnings`. Exit codes: 0 scored; 1 the JSON's `error` "
    "is non-empty (missing or unreadable final.mp4, malformed rubric); 2 usage error; 3 dataset error.",
    ("studiobench",): "Check StudioBench task files and run directories against the StudioBench formats. "
    + GROUP_EXITS,
    ("studiobench", "validate-task"): "Check task JSON files against the StudioBench task format and print "
    "one verdict per file. Exit codes: 0 every file is valid; 1 some file is not; 2 usage error; 3 a file "
    "cannot be read.",
    ("studiobench", "validate-run"): "Check StudioBench run directories (call log, outputs, limits) and "
    "print one verdict per run. Exit codes: 0 every run passes; 1 some run does not; 2 usage error; 3 a "
    "folder cannot be read.",
    ("export",): "Export the benchmark to another format (`openvibe`, `harbor`). " + GROUP_EXITS,
    ("export", "openvibe"): "Write the benchmark as an OpenVibe bench.benchmark@1 document (validated "
    "before anything is written; stdout without --out). Exit codes: 0 written; 1 the document does not "
    "validate (its errors are listed); 2 usage error; 3 dataset error.",
    ("export", "harbor"): "Older spelling of `avb harbor export` (kept for one release). " + STANDARD_EXITS,
    ("grade",): "Serve a local web page where a person grades the recap llm items of runs; every verdict is "
    "saved at once under the cache's grades/ folder, and `avb verify --judge human` and `avb judge agree` "
    "read them. Runs until Ctrl-C. It prints the URL (with its token) and opens no browser: the URL is for "
    "the graders, who may sit at other machines (--host). `avb view` differs on purpose: it opens a browser "
    "and binds 127.0.0.1 only, because its live page shows answers and verifier-only files. Exit codes: 0 stopped; 2 usage error; 3 nothing to grade (no recap "
    "final.mp4 with llm items) or the dataset cannot be read.",
    ("judge",): "Judge tools. " + GROUP_EXITS,
    ("judge", "agree"): "Agreement between two or more verdict sources on recap llm items (human:<grader> "
    "from `avb grade`, model:<name> from the judge cache): raw agreement, Cohen's kappa with a bootstrap "
    "interval and the confusion table per pair, Fleiss' kappa for three or more. Exit codes: 0 ok; 2 fewer "
    "than two sources or a bad option; 3 a source cannot be read.",
    ("gold",): "Older spelling of `avb harbor gold`. " + STANDARD_EXITS,
    ("harbor",): "Everything Harbor: export tasks, import jobs, gold outputs, rewards, metrics and "
    "comparability checks (docs/harbor.md). " + GROUP_EXITS,
    ("harbor", "export"): "Write one Harbor task directory per task (instruction, environment, "
    "tests/test.sh scoring with `avb score`, the oracle's solve.sh) and a listing with digests. The "
    "verifier image installs a wheel of this checkout, built once and cached (--wheel or --package-spec to "
    "choose another). " + STANDARD_EXITS,
    ("harbor", "import"): "Turn Harbor job directories into run directories (one per agent, model and "
    "attempt) for `avb verify`, with each trial's outcome and usage recorded. " + STANDARD_EXITS,
    ("harbor", "gold"): "Write gold (oracle) outputs for every task where one can be derived, as a run "
    "directory; `avb verify` on it scores 1.0 on each (recap has none). " + STANDARD_EXITS,
    ("harbor", "reward"): 'Turn an `avb score` result into Harbor\'s reward.json ({"reward": headline}) and '
    "its details sidecar; exported tasks call it from tests/test.sh. " + STANDARD_EXITS,
    ("harbor", "metric"): "Per-family headlines, macro and micro of Harbor jobs, as `avb leaderboard` "
    "defines them, from the rewards Harbor recorded. " + STANDARD_EXITS,
    ("harbor", "check-job"): "Say whether Harbor jobs are comparable on a leaderboard: no timeout "
    "multiplier or resource override, the exported tasks, enough trials per task. Exit codes: 0 every job "
    "is comparable; 1 some job is not; 2 usage error; 3 a job folder cannot be read.",
    ("import",): "Import agent runs made with another tool. " + GROUP_EXITS,
    ("import", "harbor"): "Older spelling of `avb harbor import` (kept for one release). " + STANDARD_EXITS,
}


def subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """(name, parser) of each direct subcommand (aliases once)."""
    found: dict[int, tuple[str, argparse.ArgumentParser]] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.setdefault(id(sub), (name, sub))
    return list(found.values())


def walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every subcommand parser under `parser`, with its command path, depth first."""
    out = []
    for name, sub in subparsers(parser):
        out.append(((*path, name), sub))
        out += walk(sub, (*path, name))
    return out


def finish_tree(parser: argparse.ArgumentParser) -> None:
    """Fill missing descriptions and exit codes from `DESCRIPTIONS`, and give every leaf command `-v/-q`."""
    from agenticvbench.cli.common import add_json_alias, add_verbosity_args

    for path, p in walk(parser):
        text = DESCRIPTIONS.get(path)
        if text is not None and not p.description:
            p.description = text
        elif text is not None and "exit code" not in f"{p.description or ''} {p.epilog or ''}".lower():
            p.epilog = text
        runs = not subparsers(p) or p.get_default("func") is not None
        if runs and not any("-q" in a.option_strings for a in p._actions):
            add_verbosity_args(p)
        fmt = next((a for a in p._actions if "--format" in a.option_strings), None)
        has_json = any("--json" in a.option_strings for a in p._actions)
        if fmt is not None and "json" in (fmt.choices or ()) and not has_json:
            add_json_alias(p)
