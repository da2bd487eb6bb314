"""What a call names: paths and URLs out of command text, and paths normalised as the agent's shell sees them."""

from __future__ import annotations

from agenticvbench.trajectory.extract import MAX_TOUCHED, folders_at, normalise_path, shell_paths, touched
from agenticvbench.trajectory.model import as_text


def test_paths_and_urls_survive_quoting_and_encoding() -> None:
    """Quoted paths, URL escapes and a Hub URL without its scheme are all found."""
    paths, urls = touched("cp \"/a b/x.mp4\" 'out/y.mp4'; wget hf.co/datasets/o/n/resolve/main/f%2Fg.mp4")
    assert "/a b/x.mp4" in paths and "out/y.mp4" in paths
    assert urls == ("https://hf.co/datasets/o/n/resolve/main/f/g.mp4",)
    _, urls = touched("curl https%3A%2F%2Fexample.com%2Fx")
    assert urls == ("https://example.com/x",)


def test_normalise_expands_home_variables_and_dots() -> None:
    """`~`, `$HOME`, `${AVB_CACHE}` and `..` resolve without touching the disk; relative paths join the cwd."""
    env = {"HOME": "/home/u", "AVB_CACHE": "/c"}
    assert normalise_path("~/x/../y", env=env) == "/home/u/y"
    assert normalise_path("${AVB_CACHE}/result-key", env=env) == "/c/result-key"
    assert normalise_path("$HOME/a", env=env) == "/home/u/a"
    assert normalise_path("../38/s.json", cwd="/runs/a/37", env=env) == "/runs/a/38/s.json"
    assert normalise_path("rel/p", env=env) == "rel/p"


def test_nested_arguments_become_text_without_recursion() -> None:
    """A deeply nested arguments value is flattened iteratively and capped."""
    value: object = "leaf"
    for _ in range(10_000):
        value = {"k": [value]}
    assert as_text(value) == "k=leaf"
    assert len(as_text({"command": "x" * 10_000})) == 4000


def test_a_trailing_parent_step_is_kept() -> None:
    """`/a/b/..` is `/a`, not `/a/b/`: trailing punctuation is stripped from a token, but not a final `..`."""
    paths, _ = touched("cd /srv/mirror/.. && ls ./x/. && echo done.")
    assert "/srv/mirror/.." in paths and "./x/." in paths


def _forms(text: str, *raws: str, cwd: str | None = None) -> list[tuple[str, str]]:
    """`shell_paths` of `text` for the paths `raws` only (it also lists the `cd` and `ln` targets)."""
    return [pair for pair in shell_paths(text, cwd=cwd, env={}) if pair[0] in raws]


def test_shell_paths_follow_cd_and_symlinks_within_the_command() -> None:
    """A relative path after `cd DIR` (`&&`, `;`, `pushd`, `os.chdir`) is joined to DIR, one under `LINK/` after
    `ln -s TARGET LINK` is read under TARGET, `$VAR` after `VAR=VALUE` (also right after a flattened
    `command=`) is VALUE; a path named before the `cd` keeps the log's folder."""
    text = "cat ./a.txt && cd /data; cat b/x.parquet && ln -s /srv/m d && cat d/t.parquet"
    assert _forms(text, "./a.txt", "b/x.parquet", "d/t.parquet", cwd="/w") == [
        ("./a.txt", "/w/a.txt"),
        ("b/x.parquet", "/data/b/x.parquet"),
        ("d/t.parquet", "/srv/m/t.parquet"),
    ]
    text = "python -c \"import os; os.chdir('/data'); open('q/r.csv')\""
    assert _forms(text, "q/r.csv") == [("q/r.csv", "/data/q/r.csv")]
    assert _forms("pushd /x && cat y/z", "y/z") == [("y/z", "/x/y/z")]
    text = 'command=D=/data/m; export E="$D/sub"; cat $E/t.parquet'
    assert _forms(text, "$E/t.parquet") == [("$E/t.parquet", "/data/m/sub/t.parquet")]


def test_shell_paths_leave_lookalikes_alone() -> None:
    """`abcd x` is not a `cd`, and a path outside the symlink's folder is not rewritten."""
    assert _forms("abcd /x && cat y/z", "y/z", cwd="/w") == [("y/z", "/w/y/z")]
    text = "ln -s /srv/m d && cat dd/t.parquet"
    assert _forms(text, "dd/t.parquet", cwd="/w") == [("dd/t.parquet", "/w/dd/t.parquet")]


def test_folders_at_are_the_folders_after_earlier_cds() -> None:
    """The working folder at points of the command: the log's folder, then each earlier `cd` in turn."""
    text = "ls && cd /data && cd sub && git lfs pull"
    assert folders_at(text, [0, text.index("git")], cwd="/w", env={}) == ["/w", "/data/sub"]


def test_a_file_url_names_its_path() -> None:
    """`file:`, `file://` and `file://localhost` before a path (ffmpeg's protocol, a `file:///` URL) name the
    path itself; a word merely ending in `file:` is left alone."""
    for text in (
        "ffmpeg -i file:/d/s.mp4 o.mp4",
        "ffmpeg -i file:///d/s.mp4",
        "cv2.VideoCapture('file://localhost/d/s.mp4')",
    ):
        paths, urls = touched(text)
        assert "/d/s.mp4" in paths and urls == (), text
    assert normalise_path("file:///d/./s.mp4", env={}) == "/d/s.mp4"
    assert "profile:/d/s.mp4" in touched("cat profile:/d/s.mp4")[0]


def test_every_path_is_judged_past_the_display_cap() -> None:
    """A step keeps `MAX_TOUCHED` paths for display; `shell_paths` gives the rules every one, in order."""
    text = " ".join(f"/w/f/{i}.png" for i in range(MAX_TOUCHED + 10)) + " && cat /m/data/t.parquet"
    assert len(touched(text)[0]) == MAX_TOUCHED
    assert shell_paths(text, env={})[-1] == ("/m/data/t.parquet", "/m/data/t.parquet")


def test_a_cd_at_the_start_of_a_quoted_command_counts() -> None:
    """codex logs `bash -lc "cd .. && cat x/y"`: the `cd` right after the quote moves the folder."""
    assert _forms('bash -lc "cd .. && cat 38/o.json"', "38/o.json", cwd="/r/37") == [
        ("38/o.json", "/r/38/o.json")
    ]


def test_dot_dot_after_a_link_leaves_its_target() -> None:
    """The kernel follows a symlink before the `..` after it; resolving `..` first named a folder beside the link
    (`/x/d/../mirror` -> `/x/mirror`) instead of beside its target. Relative paths stay relative, `/..` is `/`,
    and a path without links reads as `posixpath.normpath` reads it."""
    links = {"/x/d": "/m/mirror", "d": "/data"}
    assert normalise_path("/x/d/../mirror/f", env={}, links=links) == "/m/mirror/f"
    assert normalise_path("/x/e/../d//./f", env={}, links=links) == "/m/mirror/f"
    assert normalise_path("d/../etc", env={}, links=links) == "/etc"
    assert normalise_path("a/../../b", env={}, links=links) == "../b"
    assert normalise_path("/../x", env={}, links=links) == "/x"
    assert normalise_path("/x/d/../mirror/f", env={}) == "/x/mirror/f"
    chain = {"/w/d": "/x/ds", "/x/ds": "/m/mirror"}  # an agent's link to a dataset given through a link
    assert (
        normalise_path("d/data/../data/t.parquet", cwd="/w", env={}, links=chain)
        == "/m/mirror/data/t.parquet"
    )
    loop = {"/a": "/b", "/b": "/a"}  # a cycle stops after MAX_LINK_HOPS links
    assert normalise_path("/a/x", env={}, links=loop) in ("/a/x", "/b/x")
