"""A loopback stand-in for the Hugging Face Hub file API, for testing the loader, `avb publish` and `avb pull` with
the real client.

It serves dataset and Space repos from memory/disk on 127.0.0.1 (random port) and speaks what `huggingface_hub` 2.x
needs (read from its source: `file_download.py`, `_snapshot_download.py`, `hf_api.py`, `_commit_api.py`, `lfs.py`).
Reads:

Every route below under `datasets/` is served under `spaces/` too, for a Space repo (`create_repo(repo_type="space",
space_sdk=...)`; repo info then has its `sdk`); a repo is found only under its own type.

- `HEAD|GET /datasets/<owner>/<name>/resolve/<revision>/<path>`: `X-Repo-Commit` (40-hex sha), `ETag` and
  `X-Linked-Etag` (the file's sha256, like an LFS file), `Content-Length`, `Accept-Ranges`, and
  `Range: bytes=a-b` (206). Errors carry `X-Error-Code` (`RepoNotFound`, `RevisionNotFound`,
  `EntryNotFound`) so the client raises its typed errors.
- `GET /api/datasets/<owner>/<name>/revision/<revision>`: repo info with `sha`, `private` and `siblings` (with
  `size`, `blobId` and `lfs`, what `repo_info(files_metadata=True)` reads).
- `GET /api/datasets/<owner>/<name>/tree/<revision>[/<path>]?recursive=true`: the file listing.

Writes (the upload path of `create_repo` + `create_commit`, see `hub_upload.py`): `POST /api/repos/create`,
`GET /api/whoami-v2`, `POST /api/validate-yaml`, `POST /api/datasets/<repo>/preupload/<rev>`, the LFS batch API
(`POST /datasets/<repo>.git/info/lfs/objects/batch`, then `PUT` upload and `POST` verify on this server), and
`POST /api/datasets/<repo>/commit/<rev>` (NDJSON; `?create_pr=1` opens `refs/pr/N`). Any bearer token is
accepted; writes without one are refused (401), and a private repo is invisible without one (404).

A revision is a branch name (`main`), `refs/pr/N` or a commit sha; each commit has its own file set, so revision
pinning is testable. Every request is recorded in `requests` so a test can prove a cache hit made no download.

By hand (no pytest): `python -c "import sys; sys.path.insert(0, 'tests'); from hub_server import HubServer; import
time; s = HubServer().start(); print(s.url); time.sleep(3600)"`, then `HF_ENDPOINT=<url> HF_TOKEN=x
HF_HUB_DISABLE_XET=1 avb publish ...` (the loopback speaks LFS, not Xet; parquet files go through LFS).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

_REPO = r"(?P<kind>datasets|spaces)/(?P<repo>[^/]+/[^/]+)"
_RESOLVE = re.compile(rf"^/{_REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")
_API = re.compile(rf"^/api/{_REPO}/(?P<what>revision|tree)/(?P<rev>[^/]+)(?:/(?P<path>.*))?$")
#: The URL segment of each repo type the loopback serves, and back.
KINDS = {"dataset": "datasets", "space": "spaces"}


def commit_sha(label: str) -> str:
    """A stable fake commit sha (40 hex digits) for a label."""
    return hashlib.sha1(label.encode()).hexdigest()


@dataclass
class Commit:
    """One commit of a repo: repo path -> file content (bytes, or a Path read on demand).

    `declared_sizes` overrides the size the listings announce for a path (a hostile repo's lie, for tests)."""

    sha: str
    files: dict[str, bytes | Path]
    declared_sizes: dict[str, int] = field(default_factory=dict)
    summary: str = ""

    def content(self, path: str) -> bytes | None:
        """The bytes of `path` at this commit, or None when it does not exist."""
        value = self.files.get(path)
        if value is None:
            return None
        return value.read_bytes() if isinstance(value, Path) else value

    def size(self, path: str, data: bytes) -> int:
        """The size the listings announce for `path` (its real size unless overridden)."""
        return self.declared_sizes.get(path, len(data))


def commit_from_dir(sha: str, root: Path, overrides: Mapping[str, bytes] | None = None) -> Commit:
    """A commit holding every file under `root` (hidden files skipped), with `overrides` replacing/adding files."""
    files: dict[str, bytes | Path] = {
        p.relative_to(root).as_posix(): p
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }
    files.update(overrides or {})
    return Commit(sha, files)


@dataclass
class HubServer:
    """The server: `repos[repo_id]` = {"refs": {"main": sha}, "commits": {sha: Commit}, "private": bool};
    start/stop; request log. `lfs_suffixes`: files the pre-upload answer sends through LFS (as the Hub does for
    data and media files), besides any file of `lfs_threshold` bytes or more."""

    repos: dict[str, dict] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    lfs_suffixes: tuple[str, ...] = (".parquet", ".mp4", ".jpg")
    lfs_threshold: int = 10 * 1024 * 1024
    lfs_objects: dict[str, bytes] = field(default_factory=dict)  # sha256 -> content uploaded through LFS
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def add_repo(
        self,
        repo_id: str,
        commits: list[Commit],
        refs: Mapping[str, str],
        *,
        private: bool = False,
        kind: str = "dataset",
        sdk: str | None = None,
    ) -> None:
        """Publish a repo (`kind` dataset or space, a Space with its `sdk`) with its commits and branch refs."""
        self.repos[repo_id] = {
            "refs": dict(refs),
            "commits": {c.sha: c for c in commits},
            "private": private,
            "type": kind,
            "sdk": sdk,
        }

    @property
    def url(self) -> str:
        """The endpoint to give `huggingface_hub` (`HF_ENDPOINT` / `endpoint=`)."""
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def count(self, method: str, contains: str = "") -> int:
        """How many `method` requests were made whose path contains `contains`."""
        with self._lock:
            return sum(1 for m, p in self.requests if m == method and contains in p)

    def head(self, repo_id: str, ref: str = "main") -> Commit:
        """The commit `ref` of `repo_id` points at."""
        repo = self.repos[repo_id]
        commit: Commit = repo["commits"][repo["refs"][ref]]
        return commit

    def start(self) -> HubServer:
        """Listen on 127.0.0.1 at a random free port, in a daemon thread."""
        handler = type("Handler", (_Handler,), {"hub": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="hub-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def _log(self, method: str, path: str) -> None:
        with self._lock:
            self.requests.append((method, path))

    def _commit(self, repo_id: str, rev: str) -> tuple[str, Commit | None]:
        repo = self.repos[repo_id]
        sha = repo["refs"].get(rev, rev)
        return sha, repo["commits"].get(sha)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hub: HubServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        """Silence the default stderr access log."""

    def do_HEAD(self) -> None:  # noqa: N802 - stdlib naming
        """Metadata only (what `get_hf_file_metadata` calls)."""
        self._serve(head=True)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        """File content or API JSON."""
        self._serve(head=False)

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        """The upload path (`hub_upload.post`)."""
        from hub_upload import post

        self._write(post)

    def do_PUT(self) -> None:  # noqa: N802 - stdlib naming
        """An LFS object's bytes (`hub_upload.put`)."""
        from hub_upload import put

        self._write(put)

    def _write(self, handler: object) -> None:
        raw = urlsplit(self.path)
        self.hub._log(self.command, unquote(raw.path))
        body = self.body()
        signed_url = raw.path.startswith("/lfs-upload/")  # the client PUTs there without its token, as to S3
        if not signed_url and not self.headers.get("Authorization", "").startswith("Bearer "):
            return self._error(401, "Unauthorized", False)
        status, doc = handler(self.hub, raw.path, parse_qs(raw.query), body, self.url_base())  # type: ignore[operator]
        headers = {"Content-Type": "application/json"}
        if status >= 400:
            headers.update(
                {"X-Error-Code": str(doc.get("code", "")), "X-Error-Message": str(doc.get("error"))}
            )
        self._send(status, json.dumps(doc).encode(), headers, False)

    def url_base(self) -> str:
        """This server's endpoint, as the client reaches it."""
        return self.hub.url

    def body(self) -> bytes:
        """The request body (Content-Length, or chunked transfer encoding)."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(self, status: int, body: bytes, headers: dict[str, str], head: bool) -> None:
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _error(self, status: int, code: str, head: bool, sha: str | None = None) -> None:
        headers = {"X-Error-Code": code, "X-Error-Message": code, "Content-Type": "application/json"}
        if sha:
            headers["X-Repo-Commit"] = sha
        self._send(status, json.dumps({"error": code}).encode(), headers, head)

    def _visible(self, repo_id: str, kind: str = "datasets") -> bool:
        repo = self.hub.repos.get(repo_id)
        return (
            repo is not None
            and KINDS[repo.get("type", "dataset")] == kind
            and (not repo.get("private") or "Authorization" in self.headers)
        )

    def _serve(self, head: bool) -> None:
        raw = urlsplit(self.path).path  # matched before unquoting: a revision may be `refs%2Fpr%2F1`
        self.hub._log(self.command, unquote(raw))
        if raw == "/api/whoami-v2":
            if not self.headers.get("Authorization", "").startswith("Bearer "):
                return self._error(401, "Unauthorized", head)
            me = {"type": "user", "name": "loopback", "orgs": [], "auth": {"accessToken": {"role": "write"}}}
            return self._send(200, json.dumps(me).encode(), {"Content-Type": "application/json"}, head)
        if m := _RESOLVE.match(raw):
            if not self._visible(unquote(m["repo"]), m["kind"]):
                return self._error(404, "RepoNotFound", head)
            return self._resolve(*(unquote(m.group(g)) for g in ("repo", "rev", "path")), head)
        if m := _API.match(raw):
            if not self._visible(unquote(m["repo"]), m["kind"]):
                return self._error(404, "RepoNotFound", head)
            repo, what, rev, sub = (unquote(m.group(g) or "") for g in ("repo", "what", "rev", "path"))
            return self._api(repo, what, rev, sub, head)
        self._error(404, "NotFound", head)

    def _resolve(self, repo_id: str, rev: str, rel: str, head: bool) -> None:
        sha, commit = self.hub._commit(repo_id, rev)
        if commit is None:
            return self._error(404, "RevisionNotFound", head)
        data = commit.content(rel)
        if data is None:
            return self._error(404, "EntryNotFound", head, sha)
        etag = f'"{hashlib.sha256(data).hexdigest()}"'
        headers = {
            "X-Repo-Commit": sha,
            "ETag": etag,
            "X-Linked-Etag": etag,
            "Accept-Ranges": "bytes",
            "Content-Type": "application/octet-stream",
        }
        status = 200
        rng = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
        if rng and not head:
            start = int(rng.group(1))
            end = int(rng.group(2)) if rng.group(2) else len(data) - 1
            headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
            data, status = data[start : end + 1], 206
        self._send(status, data, headers, head)

    def _api(self, repo_id: str, what: str, rev: str, sub: str, head: bool) -> None:
        sha, commit = self.hub._commit(repo_id, rev)
        if commit is None:
            return self._error(404, "RevisionNotFound", head)
        paths = sorted(commit.files)
        body: dict | list
        if what == "revision":
            body = {
                "id": repo_id,
                "sha": sha,
                "private": bool(self.hub.repos[repo_id].get("private")),
                "disabled": False,
                "gated": False,
                "siblings": [_sibling(p, commit) for p in paths],
                **({"sdk": self.hub.repos[repo_id]["sdk"]} if self.hub.repos[repo_id].get("sdk") else {}),
            }
        else:
            prefix = f"{sub.rstrip('/')}/" if sub else ""
            body = []
            dirs = sorted({"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)})
            for d in dirs:
                if d.startswith(prefix):
                    body.append({"type": "directory", "path": d, "oid": commit_sha(d), "size": 0})
            for p in paths:
                if p.startswith(prefix):
                    data = commit.content(p) or b""
                    size = commit.size(p, data)
                    body.append(
                        {
                            "type": "file",
                            "path": p,
                            "size": size,
                            "oid": hashlib.sha1(data).hexdigest(),
                            "lfs": {
                                "oid": hashlib.sha256(data).hexdigest(),
                                "size": size,
                                "pointerSize": 134,
                            },
                        }
                    )
        self._send(200, json.dumps(body).encode(), {"Content-Type": "application/json"}, head)


def _sibling(path: str, commit: Commit) -> dict:
    """One `siblings` entry with the metadata `repo_info(files_metadata=True)` reads."""
    data = commit.content(path) or b""
    size = commit.size(path, data)
    return {
        "rfilename": path,
        "size": size,
        "blobId": hashlib.sha1(data).hexdigest(),
        "lfs": {"size": size, "sha256": hashlib.sha256(data).hexdigest(), "pointerSize": 134},
    }


#: The demo Hub's commits (see tests/conftest.py): `main` points at MAIN_SHA; OLD_SHA is an older commit whose
#: parquet differs. They live here, not in conftest.py, because test modules cannot import a conftest reliably.
MAIN_SHA = commit_sha("demo-main")
OLD_SHA = commit_sha("demo-old")
#: Task ids present in the old commit's parquet (sequencing and assembly only, prompts marked "[old]").
OLD_TASK_IDS = (37, 38, 83, 84)
