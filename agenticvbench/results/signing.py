"""The result key: HMAC-SHA256 signatures that say a result file was written by this scorer.

A run directory is written by the agent being scored, so anything in it, including `RUN/avb-results/*.json`, may
be planted. A content hash can be recomputed by anyone; a keyed MAC cannot without the key. The key therefore
lives outside every run folder:

1. `--key-file PATH` (`verify_run(key_file=...)`), else
2. the file named by `$AVB_RESULT_KEY_FILE`, else
3. `result-key` in the package cache (`$AVB_CACHE`, else ~/.cache/agenticvbench).

The file is created on first use (32 random bytes as 64 hex digits, mode 0600, published with a hard link so
concurrent first uses agree on one key). An operator may also write it: any content of 32 to 4096 bytes, with
surrounding whitespace stripped, is the secret.

Workers never receive the secret: a job carries a `KeyRef` (the file's path and the key's id) and the worker
reads the file itself and checks the id, so on a cluster every worker must see the same file (a shared
filesystem, like the run directories). A worker that cannot read it, or reads another key, writes its results
unsigned with a warning saying why; they are rescored by the next `avb verify`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agenticvbench.errors import ConfigError
from agenticvbench.fsutil import TooLargeError, per_file, read_capped

KEY_ENV = "AVB_RESULT_KEY_FILE"
KEY_FILENAME = "result-key"
ALG = "hmac-sha256"
MIN_KEY_BYTES = 32
MAX_KEY_BYTES = 4096
_ID_PREFIX = b"agenticvbench result key id\0"


@dataclass(frozen=True)
class KeyRef:
    """What a job carries to its worker: where the key file is and which key it must hold (never the secret)."""

    path: str
    key_id: str


@dataclass(frozen=True)
class ResultKey:
    """A loaded result key: its file, its public id (16 hex digits) and the secret (kept out of `repr`)."""

    path: str
    key_id: str
    secret: bytes = field(repr=False)

    def ref(self) -> KeyRef:
        """The picklable reference a worker resolves with `worker_key`."""
        return KeyRef(self.path, self.key_id)

    def mac(self, payload: bytes) -> str:
        """HMAC-SHA256 of `payload` under this key, as 64 hex digits."""
        return hmac.new(self.secret, payload, hashlib.sha256).hexdigest()

    def verify(self, payload: bytes, mac: str) -> bool:
        """Whether `mac` is this key's MAC of `payload` (constant-time comparison)."""
        return hmac.compare_digest(self.mac(payload), str(mac))


def key_id(secret: bytes) -> str:
    """The public id of a secret: 16 hex digits of a domain-separated SHA-256 (names the key, reveals nothing)."""
    return hashlib.sha256(_ID_PREFIX + secret).hexdigest()[:16]


def key_path(key_file: str | os.PathLike[str] | None = None) -> Path:
    """Where the result key is: `key_file`, else `$AVB_RESULT_KEY_FILE`, else `result-key` in the package cache."""
    if key_file:
        return Path(key_file).expanduser()
    if env := os.environ.get(KEY_ENV, "").strip():
        return Path(env).expanduser()
    from agenticvbench.dataset.loader import default_cache_dir

    return default_cache_dir() / KEY_FILENAME


def _create(path: Path) -> bool:
    """Create a new key file at `path` (mode 0600); False when another process created it first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_hex(32) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)  # atomic publish that never replaces a key another process created meanwhile
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(tmp)


def _read(path: Path) -> ResultKey:
    try:
        raw = read_capped(path, MAX_KEY_BYTES)
    except TooLargeError:
        raise ConfigError(f"result key {path}: over {MAX_KEY_BYTES} bytes; not a key file") from None
    except OSError as exc:
        raise ConfigError(f"result key {path}: cannot be read ({exc.strerror or exc})") from None
    secret = raw.strip()
    if len(secret) < MIN_KEY_BYTES:
        raise ConfigError(f"result key {path}: {len(secret)} bytes, at least {MIN_KEY_BYTES} are needed")
    return ResultKey(str(path.resolve()), key_id(secret), secret)


_read_cached = per_file(maxsize=8)(_read)  # workers read the key once per process per file identity


def load_key(
    key_file: str | os.PathLike[str] | None = None, *, create: bool = True
) -> tuple[ResultKey | None, list[str]]:
    """The result key (see the module docstring for where it is) and notes about it (created, readable by others).

    With `create`, a missing file is created; without, a missing file gives (None, [note]) (reports only check,
    they never make keys). An unreadable or too short file raises `ConfigError`.
    """
    path = key_path(key_file)
    notes: list[str] = []
    if not path.exists():
        if not create:
            return None, [
                f"no result key at {path}: signatures cannot be checked (`avb verify` creates it, or "
                f"give the scorer's key with --key-file or ${KEY_ENV})"
            ]
        try:
            if _create(path):
                notes.append(f"created the result key {path} (mode 0600); keep it outside every run folder")
        except OSError as exc:
            raise ConfigError(
                f"result key {path}: cannot be created ({exc.strerror or exc}); choose another "
                f"place with --key-file or ${KEY_ENV}"
            ) from None
    key = _read(path)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        notes.append(
            f"result key {path} is readable by others (mode {mode:04o}); `chmod 600 {path}` unless "
            "every worker's user needs it"
        )
    return key, notes


def worker_key(ref: KeyRef | None) -> tuple[ResultKey | None, str]:
    """Resolve a job's `KeyRef` on the worker: (key, '') or (None, why it cannot sign). Read once per process
    per (file, size, mtime); the id must be the one the client loaded, else every worker signs differently."""
    if ref is None:
        return None, ""
    try:
        key = _read_cached(ref.path)
    except OSError as exc:
        return None, f"the result key {ref.path} cannot be read on this worker ({exc.strerror or exc})"
    except ConfigError as exc:
        return None, str(exc)
    if key.key_id != ref.key_id:
        return None, (
            f"the result key {ref.path} on this worker has id {key.key_id}, the client's has id "
            f"{ref.key_id}; every worker must see the same key file (a shared filesystem, --key-file)"
        )
    return key, ""


def inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether `path` resolves inside `folder` (both resolved; used to keep the key out of run folders)."""
    p, f = os.path.realpath(path), os.path.realpath(folder)
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)
