"""The dataset card (README.md) of a published repo: YAML front matter for the Hub and for tools, then Markdown.

Front matter: `configs:` declares each table (`data/<table>.parquet`, `results` the default), and the
`agenticvbench:` block carries what a tool needs to reproduce the board (`card_format`, `package_version`,
`digest`, `dataset`, `aggregation` = `board.BoardSettings.to_dict`, `runs`, `tables`). The body shows the board,
its caption and a "Reproduce" section with exact commands. docs/guide/publish.md writes the format down.

`parse_card` reads a pulled card as hostile input: at most `layout.CARD_MAX_BYTES`, YAML without anchors or
aliases (no expansion bombs), every field type-checked; a bad card raises ValueError naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml  # type: ignore[import-untyped]  # a declared dependency (pyproject.toml)

from agenticvbench.hub.board import BoardSettings
from agenticvbench.hub.layout import CARD_MAX_BYTES, TABLES_DIR, unsafe_path

CARD_FORMAT = 1
_FRONT = re.compile(r"\A---\n(?P<yaml>.*?)\n---\n", re.S)
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)


@dataclass(kw_only=True)
class Card:
    """What a card says (the `agenticvbench:` block), plus the rendered board for the body."""

    digest: str
    settings: BoardSettings
    dataset: dict[str, Any]  # `publish.dataset_identity`
    runs: list[dict[str, Any]]  # {run, harness, model, rep, results}
    tables: list[str]
    package_version: str
    repo: str = ""
    revision: str = "main"
    board_markdown: str = ""
    caption: str = ""
    notes: list[str] = field(default_factory=list)

    def meta(self) -> dict[str, Any]:
        """The `agenticvbench:` block."""
        return {
            "card_format": CARD_FORMAT,
            "package_version": self.package_version,
            "digest": self.digest,
            "dataset": self.dataset,
            "aggregation": self.settings.to_dict(),
            "runs": self.runs,
            "tables": self.tables,
        }


def dataset_args(dataset: Mapping[str, Any]) -> str:
    """The `--dataset ... --revision ...` of the reproduce command for a dataset identity."""
    if dataset.get("kind") == "hub":
        return f"--dataset {dataset['repo']} --revision {dataset['revision']}"
    if dataset.get("kind") == "local":
        return "--dataset MIRROR"
    return ""


def _reproduce(card: Card) -> str:
    s = card.settings
    ds = card.dataset
    pin = f"{card.repo}@{card.revision}" if card.repo else "ORG/NAME@REVISION"
    universe_args = dataset_args(ds) if ds.get("kind") in ("hub", "local") else ""
    lines = [
        "## Reproduce",
        "",
        f"Pinned: agenticvbench {card.package_version}; this repo at the commit that holds this card "
        f"(`avb pull` records its sha); the dataset {_dataset_text(ds)}.",
        "",
        "```bash",
        f"pip install agenticvbench=={card.package_version}   # not yet on PyPI: a clone at that version",
        f"avb pull {pin} --out pulled   # checks the tables against the result files, and the digest",
        f"avb leaderboard pulled/runs/* {universe_args} --resamples {s.resamples} --seed {s.seed} --no-floor "
        "--format json --out board.json".replace("  ", " "),
        "python -m agenticvbench.hub.board board.json   # prints the digest below",
        *(
            [
                f"avb pull {pin} --out pulled --rescore"
                + (" --dataset MIRROR" if ds.get("kind") == "local" else "")
                + "   # scores the published outputs again and compares"
            ]
            if any(r.get("outputs") for r in card.runs)
            else []
        ),
        "```",
        "",
        f"Digest of the board's numbers: `{card.digest}` (SHA-256 of the canonical JSON of every row's family "
        "means and intervals, macro and micro; docs/guide/publish.md).",
    ]
    if ds.get("kind") == "local":
        lines += [
            "",
            f"MIRROR is a local copy of the dataset whose `{ds.get('parquet_path', 'parquet')}` has SHA-256 "
            f"`{ds.get('parquet_sha256')}` (for the demo benchmark, the mirror `avb demo` builds).",
        ]
    return "\n".join(lines)


def _dataset_text(ds: Mapping[str, Any]) -> str:
    if ds.get("kind") == "hub":
        return f"`{ds.get('repo')}` at commit `{ds.get('revision')}`"
    if ds.get("kind") == "local":
        return f"local (parquet SHA-256 `{ds.get('parquet_sha256')}`)"
    return f"unknown ({ds.get('reason', 'the results name no single dataset')})"


def render_card(card: Card) -> str:
    """README.md: front matter (`configs:` and the `agenticvbench:` block), the board, Reproduce."""
    configs = [
        {
            "config_name": t,
            "data_files": f"{TABLES_DIR}/{t}.parquet",
            **({"default": True} if t == "results" else {}),
        }
        for t in card.tables
    ]
    front = {
        "pretty_name": "AgenticVBench results",
        "tags": ["agenticvbench", "evaluation"],
        "configs": configs,
        "agenticvbench": card.meta(),
    }
    text = yaml.safe_dump(front, sort_keys=False, allow_unicode=False, width=1000, default_flow_style=None)
    runs = ", ".join(f"`{r['run']}`" for r in card.runs)
    body = [
        "# AgenticVBench results",
        "",
        f"Scored runs ({runs}) with every result file as `avb verify` wrote it (`runs/<run>/avb-results/`), "
        f"and tables derived from them ({', '.join(card.tables)}; `data/`"
        + (
            "; the agent rows of `costs` come from each run's `run.json`, priced as `avb cost` prices them"
            if "costs" in card.tables
            else ""
        )
        + "). Each result file carries its own "
        "SHA-256 (`result_sha256`) and the publisher's signature, which only the publisher's key can check.",
        "",
        card.board_markdown.strip(),
        "",
        card.caption,
        *(f"\n- {n}" for n in card.notes),
        "",
        _reproduce(card),
        "",
    ]
    return f"---\n{text}---\n\n" + "\n".join(body)


def _no_aliases(text: str) -> None:
    for token in yaml.scan(text):
        if isinstance(token, (yaml.AliasToken, yaml.AnchorToken, yaml.TagToken)):
            raise ValueError("the card's YAML uses anchors, aliases or tags (refused)")


def parse_card(raw: bytes) -> Card:
    """The `agenticvbench:` block of a pulled README.md, checked field by field (module docstring)."""
    if len(raw) > CARD_MAX_BYTES:
        raise ValueError(f"README.md is {len(raw)} bytes, over the {CARD_MAX_BYTES} byte limit")
    text = raw.decode("utf-8", errors="strict")
    m = _FRONT.match(text)
    if not m:
        raise ValueError("README.md has no YAML front matter")
    try:
        _no_aliases(m["yaml"])
        front = yaml.safe_load(m["yaml"])
    except yaml.YAMLError as exc:
        raise ValueError(f"README.md front matter is not valid YAML ({str(exc)[:200]})") from None
    meta = front.get("agenticvbench") if isinstance(front, Mapping) else None
    if not isinstance(meta, Mapping):
        raise ValueError("README.md front matter has no `agenticvbench:` block")
    if meta.get("card_format") != CARD_FORMAT:
        raise ValueError(f"card_format {meta.get('card_format')!r}, expected {CARD_FORMAT}")
    digest = meta.get("digest")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise ValueError("digest is not `sha256:` and 64 hex digits")
    dataset = meta.get("dataset")
    runs = meta.get("runs")
    tables = meta.get("tables")
    if not isinstance(dataset, Mapping) or not all(
        isinstance(v, (str, int, type(None))) for v in dataset.values()
    ):
        raise ValueError("dataset is not a mapping of plain values")
    if not isinstance(runs, list) or not all(
        isinstance(r, Mapping) and isinstance(r.get("run"), str) for r in runs
    ):
        raise ValueError("runs is not a list of {run: name, ...}")
    if not isinstance(tables, list) or not all(isinstance(t, str) and not unsafe_path(t) for t in tables):
        raise ValueError("tables is not a list of names")
    version = meta.get("package_version")
    return Card(
        digest=digest,
        settings=BoardSettings.from_dict(meta.get("aggregation")),
        dataset=dict(dataset),
        runs=[dict(r) for r in runs],
        tables=list(tables),
        package_version=version if isinstance(version, str) else "",
    )
