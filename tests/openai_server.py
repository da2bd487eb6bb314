"""A loopback OpenAI-compatible test server (stdlib only) that scripts judge replies and counts calls.

It speaks `POST /v1/chat/completions` and `POST /v1/audio/transcriptions` with the real response shapes
(including `usage`), on 127.0.0.1 at a random port, in a background thread. Replies are chosen by markers found in
the request's text (`reply_when`), else `default_reply`. It can fail the next N chat requests with a status code
(`fail_next`), delay replies (`slow_next`), send a malformed completion (`garbage_next`) or any raw body
(`raw_next`), reject `response_format` with a 400, and it records every request body. Hostile modes: `hang = True`
accepts every connection and never answers; `trickle_s = T` sends the response one byte every T seconds.

Media parts: it accepts `image_url`, `input_audio` (base64 `data`, `format` wav|mp3), `audio_url` and `video_url`
(base64 data URLs) parts and checks each (decodable base64, a WAV/MP3/MP4 signature matching the declared format);
a part that fails the check is a 400. `refuse("audio")` makes every request carrying that part kind a 4xx
(kinds: image, audio, video, or a style: input_audio, audio_url), as an endpoint without that capability
would. Capability probes (requests whose text holds `PROBE_MARKER`) are answered apart from the scripted
failures and garbage: counted in `probe_calls` and kept in `probe_requests`, not in `calls` and `requests`;
hostile modes apply to them too.

Usage:

    with FakeOpenAIServer() as srv:
        srv.reply_when("MARKER-A", '{"pass": false, "reason": "no"}')
        srv.refuse("video")
        settings = JudgeSettings(base_url=srv.base_url, ...)

Standalone: `python tests/openai_server.py [--refuse audio]` serves until interrupted and prints the
`AVB_JUDGE_BASE_URL=...` line to export, which every `avb` judge option honours.

Prompt tokens are 50 + 85 per image + 30 per audio part + 200 per video part (a deterministic stand-in for the
real count), completion tokens 12.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from openai_parts import PART_KINDS, media_parts, part_kinds, part_problem

__all__ = [
    "PART_KINDS",
    "FakeOpenAIServer",
    "closed_port",
    "media_parts",
    "n_images",
    "part_kinds",
    "request_text",
]

PROMPT_BASE_TOKENS = 50
TOKENS_PER_IMAGE = 85
TOKENS_PER_AUDIO = 30
TOKENS_PER_VIDEO = 200
COMPLETION_TOKENS = 12
PROBE_MARKER = "avb-capability-probe"  # the text of the judge's capability probes (agenticvbench.judge.probe)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request_text(body: dict[str, Any]) -> str:
    """All text parts of a chat request, joined (what markers are matched against)."""
    out: list[str] = []
    for msg in body.get("messages", []):
        content = msg.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    return "\n".join(out)


def n_images(body: dict[str, Any]) -> int:
    """How many image parts a chat request carries."""
    return sum(
        1
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if isinstance(p, dict) and p.get("type") == "image_url"
    )


class FakeOpenAIServer:
    """Scripted OpenAI-compatible endpoint; see the module docstring."""

    def __init__(self, default_reply: str = '{"pass": true, "reason": "criterion met"}') -> None:
        self.default_reply = default_reply
        self.rules: list[tuple[str, str]] = []
        self.reject_response_format = False
        self.transcript = "welcome to the recap"
        self.calls = 0  # chat requests received (failed ones included)
        self.transcription_calls = 0
        self.requests: list[dict[str, Any]] = []
        self.probe_calls = 0
        self.probe_requests: list[dict[str, Any]] = []
        self.refused: dict[str, int] = {}  # part kind or style -> the 4xx status it gets
        self._failures: list[tuple[int, dict[str, str]]] = []
        self._slow: list[float] = []
        self._garbage = 0
        self._raw: list[tuple[str, bytes]] = []
        self.hang = False
        self.trickle_s = 0.0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # -- scripting
    def reply_when(self, marker: str, content: str) -> None:
        """Reply `content` to chat requests whose text contains `marker` (first matching rule wins)."""
        self.rules.append((marker, content))

    def refuse(self, kind: str, status: int = 400) -> None:
        """Answer every chat request carrying a part of `kind` (image | audio | video | input_audio | audio_url)
        with HTTP `status`, as an endpoint without that capability does."""
        self.refused[kind] = status

    def fail_next(self, n: int, status: int = 429, *, retry_after: float | None = None) -> None:
        """Answer the next `n` chat requests with HTTP `status` (an OpenAI-style error body)."""
        headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
        with self._lock:
            self._failures += [(status, headers)] * n

    def garbage_next(self, n: int) -> None:
        """Answer the next `n` chat requests with HTTP 200 and a body that is not a chat completion."""
        with self._lock:
            self._garbage += n

    def raw_next(self, n: int, body: bytes, content_type: str = "application/json") -> None:
        """Answer the next `n` chat requests with HTTP 200 and exactly `body` (e.g. not JSON at all)."""
        with self._lock:
            self._raw += [(content_type, body)] * n

    def slow_next(self, n: int, seconds: float) -> None:
        """Delay the next `n` chat replies by `seconds` (to provoke client timeouts)."""
        with self._lock:
            self._slow += [seconds] * n

    @property
    def base_url(self) -> str:
        """The `/v1` base URL to give the OpenAI client."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    # -- lifecycle
    def start(self) -> FakeOpenAIServer:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (hanging and trickling handlers give up)."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the handler
    def _media_error(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        """A 4xx for a refused or malformed media part, else None."""
        for part in media_parts(body):
            kind, style = PART_KINDS.get(str(part.get("type")), ""), str(part.get("type"))
            status = self.refused.get(kind) or self.refused.get(style)
            if status is not None:
                message = f"this model does not accept {style} content"
                return status, {"error": {"message": message, "type": "invalid_request_error"}}, {}
            problem = part_problem(part)
            if problem is not None:
                return 400, {"error": {"message": problem, "type": "invalid_request_error"}}, {}
        return None

    def _probe(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self.probe_calls += 1
            self.probe_requests.append(body)
        return self._media_error(body) or self._completion(body, "ok")

    def _completion(self, body: dict[str, Any], content: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        kinds = part_kinds(body)
        p_tok = (
            PROMPT_BASE_TOKENS
            + TOKENS_PER_IMAGE * kinds.count("image")
            + TOKENS_PER_AUDIO * kinds.count("audio")
            + TOKENS_PER_VIDEO * kinds.count("video")
        )
        return (
            200,
            {
                "id": f"chatcmpl-test{self.calls}",
                "object": "chat.completion",
                "created": 1700000000,
                "model": body.get("model", "test-model"),
                "system_fingerprint": None,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": p_tok,
                    "completion_tokens": COMPLETION_TOKENS,
                    "total_tokens": p_tok + COMPLETION_TOKENS,
                },
            },
            {},
        )

    def _chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        if PROBE_MARKER in request_text(body):
            return self._probe(body)
        with self._lock:
            self.calls += 1
            self.requests.append(body)
            failure = self._failures.pop(0) if self._failures else None
            delay = self._slow.pop(0) if self._slow else 0.0
        if delay:
            time.sleep(delay)
        if failure is not None:
            status, headers = failure
            kind = "rate_limit_exceeded" if status == 429 else "server_error"
            return status, {"error": {"message": f"scripted {status}", "type": kind, "code": kind}}, headers
        with self._lock:
            garbage, self._garbage = self._garbage > 0, max(0, self._garbage - 1)
        if garbage:
            return 200, {"choices": "not a list", "usage": "??"}, {}
        if self.reject_response_format and "response_format" in body:
            return (
                400,
                {
                    "error": {
                        "message": "response_format is not supported",
                        "type": "invalid_request_error",
                        "param": "response_format",
                        "code": None,
                    }
                },
                {},
            )
        refused = self._media_error(body)
        if refused is not None:
            return refused
        text = request_text(body)
        content = next((c for marker, c in self.rules if marker in text), self.default_reply)
        return self._completion(body, content)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def _send(self, status: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(obj).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _hostile(self, probe: bool) -> bool:
                """Hang or trickle when asked to; True when the request was handled that way."""
                counter = "probe_calls" if probe else "calls"
                if server.hang:
                    with server._lock:
                        setattr(server, counter, getattr(server, counter) + 1)
                    server._stopping.wait()
                    return True
                if server.trickle_s > 0:
                    with server._lock:
                        setattr(server, counter, getattr(server, counter) + 1)
                    body = json.dumps({"choices": []}).encode()
                    data = (
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + f"Content-Length: {len(body)}\r\n\r\n".encode()
                        + body
                    )
                    for i in range(len(data)):
                        if server._stopping.wait(server.trickle_s):
                            return True
                        try:
                            self.wfile.write(data[i : i + 1])
                            self.wfile.flush()
                        except OSError:
                            return True
                    return True
                return False

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                probe = PROBE_MARKER.encode() in raw
                if self.path.endswith("/chat/completions") and self._hostile(probe):
                    self.close_connection = True
                    return
                with server._lock:
                    raw_reply = (
                        server._raw.pop(0)
                        if server._raw and self.path.endswith("/chat/completions") and not probe
                        else None
                    )
                if raw_reply is not None:
                    with server._lock:
                        server.calls += 1
                    self.send_response(200)
                    self.send_header("Content-Type", raw_reply[0])
                    self.send_header("Content-Length", str(len(raw_reply[1])))
                    self.end_headers()
                    self.wfile.write(raw_reply[1])
                    return
                if self.path.endswith("/chat/completions"):
                    try:
                        body = json.loads(raw)
                    except json.JSONDecodeError:
                        self._send(400, {"error": {"message": "invalid JSON body"}})
                        return
                    self._send(*server._chat(body))
                elif self.path.endswith("/audio/transcriptions"):
                    with server._lock:
                        server.transcription_calls += 1
                    self._send(200, {"text": server.transcript})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

        return Handler


def make_clip(path: Any, *, seconds: float = 2.0, size: str = "64x64", audio: bool = True) -> Any:
    """Write a tiny lavfi testsrc2 clip (10 fps H.264, optional 440 Hz AAC tone) for judge and verifier tests."""
    from agenticvbench.media import run_ffmpeg

    args = ["-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=10:duration={seconds}"]
    if audio:
        args += ["-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:a", "aac"]
    args += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-shortest", str(path)]
    run_ffmpeg(args, check=True)
    return path


def main(argv: list[str] | None = None) -> None:
    """Serve a fake endpoint until interrupted (`--refuse KIND` as many times as wanted)."""
    import argparse

    p = argparse.ArgumentParser(description="a loopback OpenAI-compatible judge endpoint for tests and demos")
    p.add_argument(
        "--refuse", action="append", default=[], help="refuse parts of this kind (image, audio, ...)"
    )
    args = p.parse_args(argv)
    with FakeOpenAIServer() as srv:
        for kind in args.refuse:
            srv.refuse(kind)
        print(f"AVB_JUDGE_BASE_URL={srv.base_url}", flush=True)
        try:
            srv._stopping.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
