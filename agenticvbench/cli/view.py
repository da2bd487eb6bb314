"""`avb view RUN...`: look at runs in a local web page (or write them as a static bundle with `--bundle`).

Exit codes: 0 stopped with Ctrl-C (or the bundle written); 2 usage error; 3 a run directory, the dataset or a
result cannot be read."""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path
from typing import Any


def comparisons(model: Any) -> list[Any]:
    """`avb compare A X` for every other run X of the model against the first given (A), in the order given,
    clustered as the board is (`cli.compare.compare_stacks`, the one comparison every surface makes)."""
    from agenticvbench.analysis.aggregate import run_ref
    from agenticvbench.cli.compare import compare_stacks

    results = model.report.results

    def of(path: str) -> list[Any]:
        return [r for r in results if run_ref(r).path == path]

    first, *others = (r.ref.path for r in model.runs)
    clustering = model.report.aggregation.clustering
    return [compare_stacks(of(first), of(other), clustering) for other in others]


def _view(args: argparse.Namespace) -> int:
    from agenticvbench.cli.common import check_trust, serve_until_interrupted, warn_lines
    from agenticvbench.dataset.loader import default_cache_dir
    from agenticvbench.errors import ConfigError
    from agenticvbench.results.signatures import reader_key
    from agenticvbench.view import Thumbnailer, ViewApp, build_model, make_server, url_of, write_bundle
    from agenticvbench.view.disclosure import published
    from agenticvbench.view.reading import RunReader

    if args.compare and args.run_dirs:
        raise ConfigError("--compare A B ... takes the runs to compare (no other RUN_DIR)")
    if args.compare is not None and len(args.compare) < 2:
        raise ConfigError("--compare takes at least two runs: A B [C ...] (each compared with A)")
    runs = list(args.compare or args.run_dirs or [])
    if not runs:
        raise ConfigError("name at least one run directory (or --compare A B ...)")
    if args.bundle is None:
        ignored = [
            opt
            for opt, given in (
                (f"--media {args.media}", args.media is not None),
                ("--show-rubric", args.show_rubric),
                ("--show-answers", args.show_answers),
            )
            if given
        ]
        if ignored:
            print(
                f"avb view: {', '.join(ignored)} only apply with --bundle DIR; ignored (the local page shows "
                "everything, with every output file)",
                file=sys.stderr,
            )
    cache = default_cache_dir() if args.cache_dir is None else Path(args.cache_dir).expanduser()
    key, _ = reader_key(args.key_file)
    reader = RunReader()  # a reload reads again only the runs whose result files changed

    def build() -> Any:
        return build_model(
            runs,
            dataset=args.dataset,
            revision=args.revision,
            cache_dir=args.cache_dir,
            local=args.bundle is None,
            cluster=not args.no_cluster,
            key=key,
            reader=reader,
        )

    def compare(model: Any) -> list[Any]:
        return comparisons(model) if args.compare and len(model.runs) >= 2 else []

    model = build()
    untrusted = check_trust(model.report.results, key, args)
    compared = compare(model)
    thumbs = Thumbnailer(cache)
    for note in model.notes:
        print(f"avb view: {note}", file=sys.stderr)
    warn_lines(untrusted, "avb view")
    if args.bundle is not None:
        policy = published(rubric=args.show_rubric, answers=args.show_answers)
        try:
            counts = write_bundle(
                model, args.bundle, thumbs, media=args.media or "thumbs", comparisons=compared, policy=policy
            )
        finally:
            thumbs.close()
        print(
            f"bundle: {args.bundle} ({counts['pages']} page(s), {counts['files']} file(s), "
            f"{counts['thumbs']} thumbnail(s)); open index.html from a static file server"
        )
        return 0
    app = ViewApp(model=model, thumbs=thumbs, comparisons=compared, reload=build, compare=compare)
    httpd = make_server(app, "127.0.0.1", args.port)
    url = url_of(httpd, app)
    print(f"viewing {len(model.runs)} run(s)")
    print(f"open: {url}", flush=True)
    if not args.no_open:
        webbrowser.open(url)
    try:
        return serve_until_interrupted(httpd, "avb view: stopped")
    finally:
        thumbs.close()


def register(sub: argparse._SubParsersAction) -> None:
    """Add `view`."""
    from agenticvbench.cli.common import add_results_dataset_args, add_trust_args

    p = sub.add_parser(
        "view",
        help="look at runs in a local web page: outputs, evidence, explain (or --bundle a static site)",
        description=__doc__,
    )
    p.add_argument(
        "run_dirs",
        nargs="*",
        metavar="RUN_DIR",
        help="run directories (or their avb-results folders) to show",
    )
    add_results_dataset_args(p)
    p.add_argument(
        "--cache-dir", default=None, help="cache folder (default: $AVB_CACHE, else the user cache)"
    )
    add_trust_args(p)
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="port on 127.0.0.1 (default: a free one); there is no --host: the live page shows answers and "
        "verifier-only files, so it serves this machine only (to share, write a --bundle)",
    )
    p.add_argument(
        "--no-open",
        action="store_true",
        help="print the URL without opening a browser (the page is for you, on this machine, so a browser "
        "opens by default; use --no-open over ssh)",
    )
    p.add_argument(
        "--compare",
        nargs="+",
        metavar="RUN",
        help="A B [C ...]: the runs side by side per task, each against A (the first) with its paired "
        "difference and the avb compare table",
    )
    p.add_argument(
        "--bundle",
        type=Path,
        metavar="DIR",
        help="write a static site into DIR instead of serving (no answers, no verifier-only files)",
    )
    p.add_argument(
        "--show-rubric",
        action="store_true",
        help="with --bundle: show the recap rubric's items, weights and thresholds (withheld by default)",
    )
    p.add_argument(
        "--show-answers",
        action="store_true",
        help="with --bundle: show the answers (correct orders, expected clips, gold windows) and the "
        "submissions of solved tasks (withheld by default)",
    )
    p.add_argument(
        "--media",
        choices=("none", "thumbs", "full"),
        default=None,
        help="with --bundle: none, frame thumbnails, or also the output files (default: thumbs)",
    )
    p.set_defaults(func=_view)
