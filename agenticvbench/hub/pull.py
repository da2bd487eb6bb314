"""`avb pull`: materialise the runs of a published repo revision, reading every byte as hostile, and check them.

1. The revision is resolved to its commit sha (`repo_info(files_metadata=True)`); every later read is pinned to it.
2. The listing is checked before a byte is downloaded: a path that could leave the folder refuses the pull, a
   declared size over its cap (`layout.cap_for`) or a total over `MAX_TOTAL_BYTES` refuses it, and a path that
   is not part of the layout is ignored with a note.
3. The accepted files are downloaded (`snapshot_download` with exactly those paths) into a temporary cache and
   read back under the same caps.
4. Each result file is written to `DIR/runs/<run>/avb-results/` and read back with the package's strict reader
   (`results.model.read_result_checked`: schema, content hash, bounded); an invalid one is removed and named.
   A published output is written to `DIR/runs/<run>/<task_id>/` only when its bytes have the hash its task's
   result recorded (`provenance.input_hashes`).
5. The tables must agree with the result files (`tables.check_tables`), and the board the package computes from
   the pulled runs under the card's settings must have the card's digest.

`DIR/avb-pull.json` records the repo, the revision asked for, the commit pulled, both digests and every problem.
The pulled results keep the publisher's signatures, which this machine's key cannot check: readers show them as
not signed here. `rescore_pulled` (`avb pull --rescore`) scores the pulled outputs again beside the pull
(`outputs.rescore`); `avb verify` run in place on a pulled run would write `missing` over every task whose
outputs were not published.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.errors import AVBError, ConfigError, SubmissionError
from agenticvbench.fsutil import atomic_write_json, is_inside, parse_json_bounded, read_capped
from agenticvbench.hub.board import board_digest, compute_board
from agenticvbench.hub.card import Card, parse_card
from agenticvbench.hub.layout import (
    CARD_MAX_BYTES,
    CARD_PATH,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    OUTPUT_PATH_RE,
    PULL_RECORD,
    RESULT_PATH_RE,
    RUNS_DIR,
    TABLE_MAX_BYTES,
    TABLE_PATH_RE,
    TABLES_DIR,
    cap_for,
    unsafe_path,
)
from agenticvbench.hub.publish import write_bytes
from agenticvbench.hub.tables import check_tables
from agenticvbench.results.model import Result, read_result_checked, scan_results
from agenticvbench.results.signatures import reader_key
from agenticvbench.runs.submission import RESULTS_DIRNAME

_SHA = re.compile(r"[0-9a-f]{40}", re.ASCII)
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}", re.ASCII)


@dataclass(kw_only=True)
class PullReport:
    """What a pull (or `avb pull --check`) found; `ok` when nothing is wrong."""

    repo: str
    requested: str
    commit: str
    folder: str
    runs: list[str] = field(default_factory=list)
    claimed_digest: str = ""
    computed_digest: str = ""
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    signatures: str = ""
    rescore: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the tables agree with the results and the digest is reproduced."""
        return (
            not self.problems
            and bool(self.computed_digest)
            and self.computed_digest == self.claimed_digest
            and self.rescore.get("ok", True)
        )

    def to_dict(self) -> dict[str, Any]:
        """The record written to `DIR/avb-pull.json`."""
        return {**asdict(self), "reproduced": self.ok}


def split_spec(spec: str) -> tuple[str, str]:
    """`ORG/NAME[@REV]` -> (repo, revision; `main` when absent); ConfigError (a usage error) otherwise."""
    repo, _, rev = spec.partition("@")
    if not _REPO.fullmatch(repo) or ".." in repo:
        raise ConfigError(f"{spec!r}: expected ORG/NAME or ORG/NAME@REVISION")
    return repo, rev or "main"


def _prepare(out: Path) -> None:
    """An empty or new folder, or one an earlier pull wrote (its runs, tables and card are replaced)."""
    if out.exists() and any(out.iterdir()):
        if not (out / PULL_RECORD).is_file():
            raise SubmissionError(
                f"{out}: not empty and not written by `avb pull`; give an empty or new folder"
            )
        for sub in (RUNS_DIR, TABLES_DIR):
            if (out / sub).is_dir() and not (out / sub).is_symlink():
                shutil.rmtree(out / sub)
        for name in (CARD_PATH, PULL_RECORD):
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)


def _accepted(siblings: list[Any], report: PullReport) -> list[str]:
    """The listed paths to download, after the path, size and count checks of step 2 (module docstring)."""
    if len(siblings) > MAX_FILES:
        raise SubmissionError(f"the repo lists {len(siblings)} files, over the {MAX_FILES} file limit")
    accepted, total = [], 0
    for s in siblings:
        path = str(s.rfilename)
        if why := unsafe_path(path):
            raise SubmissionError(
                f"refused: the repo lists a path that could leave the folder ({path!r} {why})"
            )
        cap = cap_for(path)
        if cap is None:
            if path != ".gitattributes":
                report.ignored.append(path)
            continue
        size = s.size
        if not isinstance(size, int) or size < 0 or size > cap:
            raise SubmissionError(f"refused: {path} declares {size!r} bytes, over its {cap} byte limit")
        total += size
        accepted.append(path)
    if total > MAX_TOTAL_BYTES:
        raise SubmissionError(f"refused: the files to pull declare {total} bytes, over {MAX_TOTAL_BYTES}")
    if CARD_PATH not in accepted:
        raise SubmissionError("the repo has no README.md (the dataset card)")
    return accepted


def _download(repo: str, sha: str, paths: list[str], tmp: Path) -> dict[str, bytes]:
    """path -> bytes of the accepted files at commit `sha`, each read back under its cap."""
    from huggingface_hub import snapshot_download

    snap = Path(
        snapshot_download(
            repo,
            repo_type="dataset",
            revision=sha,
            cache_dir=tmp,
            allow_patterns=paths,
            endpoint=os.environ.get("HF_ENDPOINT") or None,
        )
    )
    out = {}
    for path in paths:
        real = (snap / path).resolve()
        if not is_inside(str(real), str(tmp.resolve())):
            raise SubmissionError(f"refused: {path} resolves outside the download folder")
        out[path] = read_capped(real, cap_for(path) or 0)
    return out


def pull(spec: str, out: str | Path) -> PullReport:
    """Pull `ORG/NAME[@REV]` into `out` and check it (module docstring); raises `AVBError` when the repo is
    refused or cannot be read, and returns the report (with its problems) otherwise."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    repo, rev = split_spec(spec)
    folder = Path(out)
    try:
        info = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None).repo_info(
            repo, repo_type="dataset", revision=rev, files_metadata=True
        )
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise AVBError(f"{repo}@{rev}: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    sha = str(info.sha or "")
    if not _SHA.fullmatch(sha):
        raise AVBError(f"{repo}@{rev}: the Hub gave no commit sha ({sha[:60]!r})")
    report = PullReport(repo=repo, requested=rev, commit=sha, folder=str(folder))
    paths = _accepted(list(getattr(info, "siblings", None) or []), report)
    _prepare(folder)
    # the record marks the folder as a pull's before any download, so a failed pull can be run again into it
    atomic_write_json(folder / PULL_RECORD, report.to_dict())
    with tempfile.TemporaryDirectory(prefix="avb-pull-") as tmp:
        try:
            files = _download(repo, sha, paths, Path(tmp))
        except (HfHubHTTPError, OSError, ValueError) as exc:
            raise AVBError(f"{repo}@{sha}: download failed ({str(exc).splitlines()[0][:300]})") from None
    for path, raw in files.items():
        if RESULT_PATH_RE.fullmatch(path) or TABLE_PATH_RE.fullmatch(path) or path == CARD_PATH:
            write_bytes(folder / path, raw)
    for path in [p for p in files if RESULT_PATH_RE.fullmatch(p)]:
        _read_back(folder, path, report)
    for path, raw in files.items():
        if m := OUTPUT_PATH_RE.fullmatch(path):
            _write_output(folder, m, raw, report)
    return _finish(folder, report)


def _write_output(folder: Path, m: re.Match[str], raw: bytes, report: PullReport) -> None:
    """A published output is written to `DIR/runs/<run>/<task_id>/<name>` (the run folder layout `avb verify`
    reads) only when its bytes are the ones the pulled result of that task says scoring hashed."""
    result, _ = read_result_checked(folder / RUNS_DIR / m["run"] / RESULTS_DIRNAME / f"{m['task']}.json")
    hashes = (result.provenance or {}).get("input_hashes") if result is not None else None
    expected = hashes.get(m["name"]) if isinstance(hashes, dict) else None
    if expected != hashlib.sha256(raw).hexdigest():
        why = (
            "no valid result of its task"
            if result is None
            else "its bytes are not the ones its result hashed"
        )
        report.problems.append(f"{m[0]}: {why}; not written")
        return
    write_bytes(folder / RUNS_DIR / m["run"] / str(int(m["task"])) / m["name"], raw)


def _read_back(folder: Path, path: str, report: PullReport) -> None:
    """Step 4: a written result file must be a valid result for the task its name says, else it is removed."""
    m = RESULT_PATH_RE.fullmatch(path)
    assert m is not None
    result, why = read_result_checked(folder / path)
    if result is not None and int(result.task_id) != int(m["task"]):
        why = f"holds task {result.task_id} but is named {m['task']}.json"
    if result is None or why:
        (folder / path).unlink(missing_ok=True)
        report.problems.append(f"{path}: not a valid result file ({why or 'unreadable'}); not written")


def check(out: str | Path) -> PullReport:
    """`avb pull --check DIR`: check an earlier pull again, offline, from what it wrote."""
    folder = Path(out)
    record_path = folder / PULL_RECORD
    if not record_path.is_file():
        raise SubmissionError(f"{folder}: no {PULL_RECORD} (not a folder `avb pull` wrote)")
    try:
        record = parse_json_bounded(read_capped(record_path, CARD_MAX_BYTES), PULL_RECORD)
    except (OSError, ValueError) as exc:
        raise SubmissionError(f"{record_path}: unreadable ({exc})") from None
    if not isinstance(record, dict):
        raise SubmissionError(f"{record_path}: not a JSON object")
    report = PullReport(
        repo=str(record.get("repo", "")),
        requested=str(record.get("requested", "")),
        commit=str(record.get("commit", "")),
        folder=str(folder),
        ignored=[str(x) for x in record.get("ignored", []) if isinstance(x, str)],
    )
    return _finish(folder, report)


def _finish(folder: Path, report: PullReport) -> PullReport:
    """Step 5 on the files in `folder`, then the record; returns the report."""
    try:
        card = parse_card(read_capped(folder / CARD_PATH, CARD_MAX_BYTES))
    except (OSError, ValueError) as exc:
        raise SubmissionError(f"README.md (the dataset card): {exc}") from None
    report.claimed_digest = card.digest
    run_dirs = sorted(p for p in (folder / RUNS_DIR).glob("*") if (p / RESULTS_DIRNAME).is_dir())
    report.runs = [p.name for p in run_dirs]
    key, _ = reader_key(None)
    items: list[tuple[str, Result]] = []
    for d in run_dirs:
        scan = scan_results(d, key)
        report.problems += [f"{b.path}: {b.reason}" for b in scan.invalid]
        items += [(d.name, r) for r in scan.results]
    tables = {
        p.stem: read_capped(p, TABLE_MAX_BYTES) for p in sorted((folder / TABLES_DIR).glob("*.parquet"))
    }
    report.problems += check_tables(tables, items)
    report.problems += _card_problems(card, folder, report.runs, list(tables))
    if run_dirs:
        try:
            report.computed_digest = board_digest(
                compute_board([str(d) for d in run_dirs], card.settings, key)
            )
        except (AVBError, ValueError) as exc:
            report.problems.append(f"the board cannot be computed: {exc}")
    else:
        report.problems.append("the repo holds no run with a result file")
    if report.computed_digest and report.computed_digest != report.claimed_digest:
        report.problems.append(
            f"the card's digest {card.digest} is not the digest of the board the pulled runs give "
            f"({report.computed_digest}): the card does not describe these results"
        )
    report.signatures = _signature_note(items, key)
    atomic_write_json(folder / PULL_RECORD, report.to_dict())
    return report


def _card_problems(card: Card, folder: Path, runs: list[str], tables: list[str]) -> list[str]:
    out = []
    named = sorted(str(r["run"]) for r in card.runs)
    if named != sorted(runs):
        out.append(f"the card names runs {named}, the repo holds {sorted(runs)}")
    for name in sorted(set(named) & set(runs)):
        want = next(r.get("outputs") for r in card.runs if str(r["run"]) == name)
        run_dir = folder / RUNS_DIR / name
        have = sorted(int(p.name) for p in run_dir.glob("*") if p.is_dir() and p.name.isdigit())
        listed = sorted(want) if isinstance(want, list) and all(type(x) is int for x in want) else want
        if listed != (have if want is not None or have else None):
            out.append(f"the card names outputs of tasks {want} for run {name}, the repo holds {have}")
    if sorted(card.tables) != sorted(tables):
        out.append(f"the card declares tables {sorted(card.tables)}, the repo holds {sorted(tables)}")
    return out


def _signature_note(items: list[tuple[str, Result]], key: Any) -> str:
    ids = sorted({str((r.signature or {}).get("key_id", "")) for _, r in items} - {""})
    unsigned = sum(1 for _, r in items if not r.signature)
    mine = getattr(key, "key_id", None)
    same = [i for i in ids if i == mine]
    text = (
        f"pulled results are not signed with this machine's key: they carry the publisher's signature "
        f"(key id {', '.join(ids) or 'none'})"
        + (f", {unsigned} none at all" if unsigned else "")
        + "; readers show them as not signed here, and their content hashes (result_sha256) were checked"
    )
    return text if not same else text + f" (key id {mine} is this machine's: published from here)"


def rescore_pulled(
    report: PullReport, *, dataset: str | None, revision: str | None = None, jobs: int | None = None
) -> PullReport:
    """`avb pull --rescore`: score the pulled outputs again (`outputs.rescore`) against `dataset` (default: the
    Hub dataset the card names; a local one must be given), record the comparison in `avb-pull.json`."""
    from agenticvbench.hub.outputs import rescore

    folder = Path(report.folder)
    card = parse_card(read_capped(folder / CARD_PATH, CARD_MAX_BYTES))
    if dataset is None and card.dataset.get("kind") == "hub":
        dataset, revision = str(card.dataset["repo"]), str(card.dataset["revision"])
    if dataset is None:
        raise ConfigError(
            f"--rescore needs --dataset: the card names a {card.dataset.get('kind')} dataset "
            f"({card.dataset.get('parquet_sha256') or card.dataset.get('reason', '')})"
        )
    rows = [r for r in card.runs if str(r.get("run")) in report.runs]
    report.rescore = rescore(folder, rows, dataset=dataset, revision=revision, jobs=jobs).to_dict()
    atomic_write_json(folder / PULL_RECORD, report.to_dict())
    return report
