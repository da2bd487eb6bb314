"""`avb publish` and `avb pull`: scored runs to a Hub dataset repo and back; `avb publish-bundle`: a static bundle to
a Space (docs/guide/publish.md)."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from agenticvbench.analysis.aggregate import DEFAULT_RESAMPLES, DEFAULT_SEED
from agenticvbench.cli.common import add_command, add_verbosity_args, notice

PUBLISH_DOC = """Publish scored runs as a Hub dataset repo, in one commit: every result file byte for byte under
runs/<run>/avb-results/, Parquet tables derived from them under data/ (runs, results, recap_items, costs), and a
dataset card (README.md) with the leaderboard, its digest and the commands that reproduce it. --with-outputs adds
the run outputs a published `avb view --bundle` may show, under runs/<run>/outputs/<task_id>/. The endpoint is
$HF_ENDPOINT (else the Hub), the token the one `hf auth login` saved (or $HF_TOKEN).

Exit codes: 0 published (or written with --dry-run); 2 usage error; 3 a run has no results or an invalid result
file, the dataset cannot be read, or the Hub refused the commit (one line on stderr).
"""

PULL_DOC = """Pull a published repo revision into DIR: runs/<run>/avb-results/ (then `avb leaderboard DIR/runs/*`),
the published outputs under runs/<run>/<task_id>/ (each checked against the hash its result recorded), the
tables under data/, the card, and DIR/avb-pull.json with the commit sha pulled. --rescore scores those outputs
again into DIR-rescored/<run>/ and names every task whose numbers differ, and why. Everything in the repo is
read as hostile: paths that could leave DIR and oversized files refuse the pull, every result file is read with
the strict result reader, the tables must agree with the result files, and the board computed from the pulled
runs must have the card's digest. Pulled results keep the publisher's signatures (not this machine's key).

Exit codes: 0 pulled (or checked) and the digest (and any rescore) reproduced; 1 something disagrees (listed on stderr, recorded
in avb-pull.json); 2 usage error; 3 the repo was refused or cannot be read.
"""

BUNDLE_DOC = """Push a static bundle written by `avb view --bundle DIR` to a static Hub Space, in one commit that
replaces every older file: what the pages show was decided when the bundle was written (the published
disclosure policy). The folder must hold index.html and static/, only regular files and folders, and no page
naming this machine's home folder. A README.md declaring `sdk: static` is added unless the bundle has one.

Exit codes: 0 pushed; 2 usage error; 3 not a bundle, or the Hub refused the commit (one line on stderr).
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add `publish` and `pull`."""
    p = add_command(sub, "publish", "publish scored runs as a Hub dataset repo (one commit)", PUBLISH_DOC)
    p.add_argument(
        "paths", nargs="+", metavar="RUN_DIR", help="scored run directories (or their avb-results)"
    )
    p.add_argument(
        "--repo", required=True, metavar="ORG/NAME", help="the Hub dataset repo (created if absent)"
    )
    p.add_argument("--private", action="store_true", help="create the repo private (ignored when it exists)")
    p.add_argument("--revision", default="main", help="the branch to commit to (default: %(default)s)")
    p.add_argument("--create-pr", action="store_true", help="open a pull request instead of committing to it")
    p.add_argument(
        "--dry-run",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the repo's files into DIR (empty or new) instead of sending them",
    )
    p.add_argument(
        "--dataset",
        default=None,
        help="the dataset the results were scored against, for the task universe and the clusters (default: "
        "the one the results name)",
    )
    p.add_argument("--dataset-revision", default=None, help="its revision (with --dataset)")
    p.add_argument(
        "--with-outputs",
        action="store_true",
        help="also publish the outputs a published `avb view --bundle` may show (never a repair video; a "
        "solved task's only with --show-answers)",
    )
    p.add_argument(
        "--show-answers", action="store_true", help="with --with-outputs: also the outputs of solved tasks"
    )
    p.add_argument("--no-cluster", action="store_true", help="every task its own cluster")
    p.add_argument(
        "--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples (default: %(default)s)"
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed (default: %(default)s)")
    p.add_argument(
        "--prices",
        default=None,
        metavar="NAME|FILE",
        help="price table for the agents' usage in the costs table, as `avb cost --prices` (default: 'paper')",
    )
    add_verbosity_args(p)
    p.set_defaults(func=run_publish)

    q = add_command(sub, "pull", "pull a published repo's runs and check its digest", PULL_DOC)
    q.add_argument("spec", nargs="?", metavar="ORG/NAME[@REV]", help="the repo and revision (default: main)")
    q.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder to pull into")
    q.add_argument(
        "--check", action="store_true", help="check an earlier pull in DIR again, offline (no ORG/NAME)"
    )
    q.add_argument(
        "--rescore",
        action="store_true",
        help="score the pulled outputs again into DIR-rescored/ and compare with the published results",
    )
    q.add_argument(
        "--dataset",
        default=None,
        help="with --rescore: the dataset (default: the Hub dataset the card names)",
    )
    q.add_argument("--dataset-revision", default=None, help="its revision (with --dataset)")
    q.add_argument("--jobs", type=int, default=None, help="with --rescore: parallel workers")
    add_verbosity_args(q)
    q.set_defaults(func=run_pull)

    b = add_command(
        sub,
        "publish-bundle",
        "push a static bundle (`avb view --bundle DIR`) to a static Hub Space (one commit)",
        BUNDLE_DOC,
    )
    b.add_argument("folder", type=Path, metavar="DIR", help="the bundle folder `avb view --bundle DIR` wrote")
    b.add_argument("--space", required=True, metavar="ORG/NAME", help="the Space (created static if absent)")
    b.add_argument("--private", action="store_true", help="create the Space private (ignored when it exists)")
    add_verbosity_args(b)
    b.set_defaults(func=run_publish_bundle)


def _quiet_client(args: argparse.Namespace) -> None:
    """No `huggingface_hub` progress bars with -q or when stderr is not a terminal."""
    if args.quiet or not sys.stderr.isatty():
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()


def run_publish(args: argparse.Namespace) -> int:
    """Stage the runs (into --dry-run DIR or a temporary folder) and, without --dry-run, send them."""
    _quiet_client(args)
    from agenticvbench.cost.pricing import load_prices
    from agenticvbench.errors import ConfigError
    from agenticvbench.hub.publish import settings_text, stage, upload
    from agenticvbench.hub.pull import split_spec

    repo, at = split_spec(args.repo)
    if at != "main" and "@" in args.repo:
        raise ConfigError("--repo takes ORG/NAME; give the branch with --revision")
    if args.show_answers and not args.with_outputs:
        raise ConfigError("--show-answers goes with --with-outputs")
    if args.resamples < 0:
        raise ConfigError(f"--resamples must be >= 0, got {args.resamples}")
    started = time.perf_counter()
    kw = {
        "repo": repo,
        "revision": args.revision,
        "dataset": args.dataset,
        "dataset_revision": args.dataset_revision,
        "resamples": args.resamples,
        "seed": args.seed,
        "cluster": not args.no_cluster,
        "with_outputs": args.with_outputs,
        "answers": args.show_answers,
        "prices": load_prices(args.prices),
    }
    with tempfile.TemporaryDirectory(prefix="avb-publish-") as tmp:
        staged = stage(args.paths, args.dry_run or Path(tmp) / "repo", **kw)
        for line in staged.notes:
            notice(args, line)
        summary = (
            f"{len(staged.card.runs)} run(s), {len(staged.files)} file(s); board digest {staged.card.digest} "
            f"({settings_text(staged.card.settings)})"
        )
        if args.dry_run:
            print(f"wrote {args.dry_run}: {summary}")
            return 0
        sent = upload(staged, repo, private=args.private, revision=args.revision, create_pr=args.create_pr)
    where = sent["pr_url"] or sent["url"]
    print(f"published {repo}@{sent['commit']}: {summary}; {where} ({time.perf_counter() - started:.1f} s)")
    return 0


def run_pull(args: argparse.Namespace) -> int:
    """Pull (or, with --check, check again) and print the outcome; exit 1 when anything disagrees."""
    from agenticvbench.errors import ConfigError
    from agenticvbench.hub.pull import check, pull, rescore_pulled

    _quiet_client(args)
    if args.check == bool(args.spec):
        raise ConfigError("give ORG/NAME[@REV] to pull, or --check alone to check DIR again")
    if (args.dataset or args.dataset_revision or args.jobs) and not args.rescore:
        raise ConfigError("--dataset, --dataset-revision and --jobs go with --rescore")
    started = time.perf_counter()
    report = check(args.out) if args.check else pull(args.spec, args.out)
    if args.rescore:
        report = rescore_pulled(report, dataset=args.dataset, revision=args.dataset_revision, jobs=args.jobs)
        done = report.rescore
        n = sum(len(t) for t in done["rescored"].values())
        print(
            f"rescored {n} task(s) with published outputs: {done['same']} reproduced, {len(done['differs'])} differ"
        )
        for line in done["differs"]:
            print(f"avb pull: rescore differs: {line}", file=sys.stderr)
    for path in report.ignored:
        notice(args, f"ignored {path} (not part of the published layout)")
    notice(args, report.signatures)
    for problem in report.problems:
        print(f"avb pull: {problem}", file=sys.stderr)
    verdict = "digest reproduced" if report.ok else "NOT reproduced"
    print(
        f"{report.repo}@{report.commit} in {report.folder}: {len(report.runs)} run(s); {verdict} "
        f"(card {report.claimed_digest}, computed {report.computed_digest or 'none'}; "
        f"{time.perf_counter() - started:.1f} s)"
    )
    return 0 if report.ok else 1


def run_publish_bundle(args: argparse.Namespace) -> int:
    """Check the bundle folder and send it to the Space."""
    from agenticvbench.errors import ConfigError
    from agenticvbench.hub.pull import split_spec
    from agenticvbench.hub.space import upload_bundle

    _quiet_client(args)
    space, at = split_spec(args.space)
    if "@" in args.space:
        raise ConfigError("--space takes ORG/NAME")
    started = time.perf_counter()
    sent = upload_bundle(args.folder, space, private=args.private)
    print(
        f"pushed {args.folder} to the Space {space}@{sent['commit']}: {sent['files']} file(s); {sent['url']} "
        f"({time.perf_counter() - started:.1f} s)"
    )
    return 0
