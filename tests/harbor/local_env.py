"""A docker-free Harbor environment for the tests: each sandbox is a host folder bind-mounted, in a private
mount namespace (`unshare -m`, as root), over the container paths a task uses.

Imported by Harbor (Python >= 3.12) through `harbor run --env local_env:LocalMountEnvironment`, never by the
package or by pytest itself. "Building" a task's image copies what its Dockerfile `COPY`s into the sandbox and
honours `WORKDIR`; `RUN` lines are not executed: the host must already provide what they install (here: `avb`
on PATH and ffmpeg through the package). Commands run as root; the task's agent user is not emulated.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

#: Container paths that are private per sandbox; everything else is the host's (read: the host's tools).
MOUNTS = ("/app", "/workspace", "/logs", "/tests", "/solution")


class LocalMountEnvironment(BaseEnvironment):
    """One sandbox = one host folder; `exec` runs `bash -c` with the folder's subfolders mounted over MOUNTS."""

    @staticmethod
    def type() -> str:
        """The environment's identifier in Harbor's records."""
        return "avb-local-mounts"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        """Nothing beyond the basics: no mounts from the host, no network policy, no GPUs."""
        return EnvironmentCapabilities()

    def _validate_definition(self) -> None:
        if not (Path(self.environment_dir) / "Dockerfile").is_file():
            raise FileNotFoundError(f"{self.environment_dir}/Dockerfile not found")

    def _host(self, path: str) -> Path:
        """The host path of a container path (must lie under one of MOUNTS)."""
        p = PurePosixPath(path)
        if not p.is_absolute():
            p = PurePosixPath(self._workdir) / p
        for m in MOUNTS:
            if p == PurePosixPath(m) or PurePosixPath(m) in p.parents:
                return self._root / str(p).lstrip("/")
        raise ValueError(f"{path}: outside the sandbox's private paths {MOUNTS}")

    async def start(self, force_build: bool) -> None:
        """Create the sandbox folder and replay the Dockerfile's COPY and WORKDIR lines into it."""
        self._root = Path(tempfile.mkdtemp(prefix="avb-harbor-sandbox-"))
        self._workdir = "/"
        for m in MOUNTS:
            (self._root / m.lstrip("/")).mkdir(parents=True, exist_ok=True)
            Path(m).mkdir(parents=True, exist_ok=True)  # the mount point on the host (empty)
        context = Path(self.environment_dir)
        for line in (context / "Dockerfile").read_text().splitlines():
            words = line.split()
            if not words or words[0].upper() not in ("COPY", "WORKDIR"):
                continue  # RUN (continuation lines included), FROM, comments: nothing to replay
            parts = shlex.split(line)
            if parts[0].upper() == "WORKDIR":
                self._workdir = parts[1]
                self._host(parts[1]).mkdir(parents=True, exist_ok=True)
            elif parts[0].upper() == "COPY":
                src, dest = context / parts[1], self._host(parts[2])
                if src.is_dir():
                    shutil.copytree(src, dest, dirs_exist_ok=True)
                else:
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dest / src.name if parts[2].endswith("/") else dest)
        for sub in ("workspace/output", "logs/agent", "logs/verifier", "logs/artifacts"):
            (self._root / sub).mkdir(parents=True, exist_ok=True)  # what Harbor's images and mounts provide

    async def stop(self, delete: bool) -> None:
        """Remove the sandbox folder."""
        root = getattr(self, "_root", None)
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        """Copy a host file into the sandbox."""
        dest = self._host(target_path)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source_path, dest)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        """Copy a host folder's contents into the sandbox."""
        shutil.copytree(source_dir, self._host(target_dir), dirs_exist_ok=True)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        """Copy a sandbox file to the host."""
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self._host(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        """Copy a sandbox folder's contents to the host (overwriting)."""
        src = self._host(source_dir)
        Path(target_dir).mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, target_dir, dirs_exist_ok=True, symlinks=True)

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        """Run `command` with bash in a private mount namespace where MOUNTS are the sandbox's folders."""
        binds = " && ".join(
            f"mount --bind {shlex.quote(str(self._root / m.lstrip('/')))} {m}" for m in MOUNTS
        )
        inner = f'{binds} && cd {shlex.quote(cwd or self._workdir)} && exec bash -c "$0"'
        merged = {**os.environ, **(self._merge_env(env) or {})}
        proc = await asyncio.create_subprocess_exec(
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            inner,
            command,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=merged,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout_sec)
        except TimeoutError:
            proc.kill()
            await proc.communicate()
            raise
        return ExecResult(
            stdout=out.decode(errors="replace"),
            stderr=err.decode(errors="replace"),
            return_code=proc.returncode if proc.returncode is not None else -1,
        )
