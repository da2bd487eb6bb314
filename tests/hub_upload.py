"""The write side of the loopback Hub (`hub_server.HubServer`): what `create_repo`, `create_commit` and
`preupload_lfs_files` of `huggingface_hub` 2.x send (read from `hf_api.py`, `_commit_api.py`, `lfs.py`).

- `POST /api/repos/create` `{"name", "organization", "type", "visibility"[, "sdk"]}`: a dataset repo, or a Space
  repo (`type` space, with its `sdk`), with an initial commit holding `.gitattributes`; 409 when it exists (the client's `exist_ok=True` accepts that).
- `POST /api/validate-yaml` `{"content", "repoType"}`: the README's YAML front matter must parse to a mapping.
- `POST /api/datasets/<repo>/preupload/<rev>` `{"files": [{"path", "sample", "size"}]}`: `uploadMode` `lfs` for
  `lfs_suffixes` and files of `lfs_threshold` bytes or more, else `regular`.
- `POST /datasets/<repo>.git/info/lfs/objects/batch`: basic transfer; an object already stored gets no actions;
  `PUT /lfs-upload/<oid>` stores the bytes when their sha256 is the oid; `POST /lfs-verify/<oid>` checks it.
- `POST /api/datasets/<repo>/commit/<rev>[?create_pr=1]`, NDJSON: `header` (`summary`, `parentCommit`),
  `file` (base64), `lfsFile` (an uploaded oid), `deletedFile`, `deletedFolder`. The new `Commit` becomes the
  branch head, or with `create_pr` the head of a new `refs/pr/N`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any
from urllib.parse import unquote

import yaml  # type: ignore[import-untyped]  # a declared dependency (pyproject.toml)
from hub_server import KINDS, Commit, HubServer

_PREUPLOAD = re.compile(
    r"^/api/(?P<kind>datasets|spaces)/(?P<repo>[^/]+/[^/]+)/(?P<what>preupload|commit)/(?P<rev>[^/]+)$"
)
_BATCH = re.compile(r"^/(?P<kind>datasets|spaces)/(?P<repo>[^/]+/[^/]+)\.git/info/lfs/objects/batch$")
_LFS = re.compile(r"^/lfs-(?P<what>upload|verify)/(?P<oid>[0-9a-f]{64})$")

Reply = tuple[int, Any]


def _fail(status: int, code: str, message: str) -> Reply:
    return status, {"error": message, "code": code}


def post(hub: HubServer, raw: str, query: dict[str, list[str]], body: bytes, base: str) -> Reply:
    """Answer one POST of the upload path: (status, JSON document)."""
    if raw == "/api/repos/create":
        return _create(hub, json.loads(body), base)
    if raw == "/api/validate-yaml":
        return _validate_yaml(json.loads(body))
    if (m := _BATCH.match(raw)) and _typed(hub, unquote(m["repo"]), m["kind"]):
        return _batch(hub, unquote(m["repo"]), json.loads(body), base)
    if (m := _LFS.match(raw)) and m["what"] == "verify":
        stored = hub.lfs_objects.get(m["oid"])
        ok = stored is not None and len(stored) == json.loads(body).get("size")
        return (200, {"ok": True}) if ok else _fail(404, "EntryNotFound", "LFS object not uploaded")
    if m := _PREUPLOAD.match(raw):
        repo_id, rev = unquote(m["repo"]), unquote(m["rev"])
        if not _typed(hub, repo_id, m["kind"]):
            return _fail(404, "RepoNotFound", f"repository {repo_id} not found")
        if m["what"] == "preupload":
            return _preupload(hub, json.loads(body))
        return _commit(hub, repo_id, rev, body, query.get("create_pr") == ["1"], f"{base}/{m['kind']}")
    return _fail(404, "NotFound", f"no route for POST {raw}")


def put(hub: HubServer, raw: str, query: dict[str, list[str]], body: bytes, base: str) -> Reply:
    """Store an LFS object's bytes (`PUT /lfs-upload/<oid>`): refused when their sha256 is not the oid."""
    m = _LFS.match(raw)
    if not m or m["what"] != "upload":
        return _fail(404, "NotFound", f"no route for PUT {raw}")
    if hashlib.sha256(body).hexdigest() != m["oid"]:
        return _fail(400, "BadRequest", "content does not match its oid")
    with hub._lock:
        hub.lfs_objects[m["oid"]] = body
    return 200, {}


def _typed(hub: HubServer, repo_id: str, kind: str) -> bool:
    """True when `repo_id` exists as a repo of the URL segment `kind` (`datasets`, `spaces`)."""
    repo = hub.repos.get(repo_id)
    return repo is not None and KINDS[repo.get("type", "dataset")] == kind


def _create(hub: HubServer, doc: dict[str, Any], base: str) -> Reply:
    kind = doc.get("type")
    if kind not in KINDS:
        return _fail(400, "BadRequest", "the loopback Hub serves dataset and Space repos only")
    if kind == "space" and doc.get("sdk") not in ("static", "gradio", "docker", "streamlit"):
        return _fail(400, "BadRequest", f"a Space needs an sdk, got {doc.get('sdk')!r}")
    repo_id = f"{doc.get('organization') or 'loopback'}/{doc['name']}"
    url = f"{base}/{KINDS[kind]}/{repo_id}"
    with hub._lock:
        if repo_id in hub.repos:
            conflict = _fail(409, "Conflict", f"You already created this {kind} repo")[1]
            return 409, {**conflict, "url": url}  # what `exist_ok=True` reads
        first = Commit(hashlib.sha1(f"init:{repo_id}".encode()).hexdigest(), {".gitattributes": b""})
        hub.add_repo(
            repo_id,
            [first],
            {"main": first.sha},
            private=doc.get("visibility") == "private" or doc.get("private") is True,
            kind=kind,
            sdk=doc.get("sdk") if kind == "space" else None,
        )
    return 200, {"url": url, "name": repo_id}


def _validate_yaml(doc: dict[str, Any]) -> Reply:
    text = str(doc.get("content", ""))
    m = re.match(r"^---\n(.*?)\n---\n", text, re.S)
    try:
        meta = yaml.safe_load(m[1]) if m else {}
    except yaml.YAMLError as exc:
        return 400, {"errors": [{"message": f"invalid YAML: {exc}"}], "warnings": []}
    if not isinstance(meta, dict):
        return 400, {"errors": [{"message": "metadata is not a mapping"}], "warnings": []}
    return 200, {"errors": [], "warnings": []}


def _preupload(hub: HubServer, doc: dict[str, Any]) -> Reply:
    files = []
    for f in doc.get("files", []):
        lfs = f["path"].endswith(hub.lfs_suffixes) or int(f["size"]) >= hub.lfs_threshold
        files.append({"path": f["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False})
    return 200, {"files": files, "commitOid": None}


def _batch(hub: HubServer, repo_id: str, doc: dict[str, Any], base: str) -> Reply:
    if repo_id not in hub.repos or doc.get("operation") != "upload":
        return _fail(404, "RepoNotFound", f"repository {repo_id} not found")
    objects = []
    for o in doc.get("objects", []):
        entry = {"oid": o["oid"], "size": o["size"], "authenticated": True}
        if o["oid"] not in hub.lfs_objects:
            entry["actions"] = {
                "upload": {"href": f"{base}/lfs-upload/{o['oid']}"},
                "verify": {"href": f"{base}/lfs-verify/{o['oid']}"},
            }
        objects.append(entry)
    return 200, {"transfer": "basic", "objects": objects}


def _commit(hub: HubServer, repo_id: str, rev: str, body: bytes, create_pr: bool, base: str) -> Reply:
    lines = [json.loads(line) for line in body.splitlines() if line.strip()]
    with hub._lock:
        repo = hub.repos[repo_id]
        parent_sha, parent = hub._commit(repo_id, rev)
        if parent is None:
            return _fail(404, "RevisionNotFound", f"invalid rev id: {rev}")
        files: dict[str, Any] = dict(parent.files)
        summary = ""
        for line in lines:
            key, value = line.get("key"), line.get("value", {})
            if key == "header":
                summary = str(value.get("summary", ""))
                wanted = value.get("parentCommit")
                if wanted and wanted != parent_sha:
                    return _fail(412, "PreconditionFailed", "parentCommit is not the head of the branch")
            elif key == "file":
                files[value["path"]] = base64.b64decode(value["content"])
            elif key == "lfsFile":
                data = hub.lfs_objects.get(value["oid"])
                if data is None or len(data) != value["size"]:
                    return _fail(400, "BadRequest", f"LFS object {value['oid']} was not uploaded")
                files[value["path"]] = data
            elif key == "deletedFile":
                if files.pop(value["path"], None) is None:
                    return _fail(404, "EntryNotFound", "A file with this name doesn't exist")
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                files = {p: v for p, v in files.items() if not p.startswith(prefix)}
            else:
                return _fail(400, "BadRequest", f"unknown commit line {key!r}")
        digest = hashlib.sha1(parent_sha.encode())
        for path in sorted(files):
            data = files[path] if isinstance(files[path], bytes) else files[path].read_bytes()
            digest.update(path.encode() + b"\0" + hashlib.sha256(data).digest())
        digest.update(summary.encode())
        commit = Commit(digest.hexdigest(), files, summary=summary)
        repo["commits"][commit.sha] = commit
        pr_url = None
        if create_pr:
            n = 1 + sum(1 for ref in repo["refs"] if ref.startswith("refs/pr/"))
            repo["refs"][f"refs/pr/{n}"] = commit.sha
            pr_url = f"{base}/{repo_id}/discussions/{n}"
        elif rev in repo["refs"]:
            repo["refs"][rev] = commit.sha
        else:
            return _fail(400, "BadRequest", f"cannot commit to {rev}: not a branch")
    return 200, {
        "commitUrl": f"{base}/{repo_id}/commit/{commit.sha}",
        "commitOid": commit.sha,
        "pullRequestUrl": pr_url,
    }
