"""`avb grade RUN...`: a local web page where people grade the recap llm items of runs (see `agenticvbench.grade`).

It prints the URL (with its token) and opens no browser: the URL is for the graders, who may sit at other
machines (`--host`). `avb view` differs on purpose: it opens a browser and binds 127.0.0.1 only, because its live
page shows answers and verifier-only files.
"""

from __future__ import annotations

import argparse
import getpass
import re
import sys
from pathlib import Path

from agenticvbench.cli.common import add_dataset_args, serve_until_interrupted


def _grade(args: argparse.Namespace) -> int:
    from agenticvbench.dataset.loader import default_cache_dir, load_tasks
    from agenticvbench.errors import SubmissionError
    from agenticvbench.grade import (
        GradingApp,
        VerdictStore,
        build_submissions,
        check_grader,
        make_server,
        url_of,
    )

    grader = check_grader(args.grader or re.sub(r"[^A-Za-z0-9_.-]", "_", getpass.getuser())[:64] or "grader")
    tasks = load_tasks("recap", dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
    subs, notes, seed = build_submissions(
        args.run_dirs,
        tasks,  # type: ignore[arg-type]
        blind=args.blind,
        seed=args.seed,
        materials=not args.no_materials,
    )
    for note in [] if args.quiet else notes:
        print(f"avb grade: skipped {note}", file=sys.stderr)
    if not subs:  # a server with nothing on it would wait forever
        raise SubmissionError("nothing to grade: no recap final.mp4 with llm items in these runs")
    cache = default_cache_dir() if args.cache_dir is None else Path(args.cache_dir).expanduser()
    app = GradingApp(
        submissions=subs, store=VerdictStore(cache / "grades"), grader=grader, blind=args.blind, seed=seed
    )
    httpd = make_server(app, args.host, args.port)
    print(
        f"grading {len(subs)} submission(s), {app.progress()['total']} item(s) as '{grader}'"
        + (f" (blind, seed {seed})" if args.blind else "")
    )
    print(f"verdicts: {app.store.path(grader)}")
    print(f"open: {url_of(httpd, app)}", flush=True)
    return serve_until_interrupted(httpd, "avb grade: stopped; every verdict is already saved")


def register(sub: argparse._SubParsersAction) -> None:
    """Add `grade`."""
    p = sub.add_parser("grade", help="grade recap llm items in a local web page (human verdicts)")
    p.add_argument(
        "run_dirs", nargs="+", metavar="RUN_DIR", help="run directories whose recap outputs to grade"
    )
    add_dataset_args(p)
    p.add_argument("--grader", help="your name in the verdict store (default: the login name)")
    p.add_argument(
        "--blind", action="store_true", help="hide run, harness and model; shuffle the submissions"
    )
    p.add_argument(
        "--seed", type=int, default=None, help="shuffle seed for --blind (default: random, printed)"
    )
    p.add_argument(
        "--no-materials",
        action="store_true",
        help="do not fetch and offer the tasks' input files (they may be large downloads)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default: %(default)s); another address lets graders on other machines open the "
        "printed URL (the page serves only the runs' recap videos, the tasks' inputs and the rubric's llm items)",
    )
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.set_defaults(func=_grade)
