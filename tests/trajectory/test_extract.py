"""What a call names: paths and URLs out of command text, and paths normalised as the agent's shell sees them."""

from __future__ import annotations

from agenticvbench.trajectory.extract import normalise_path, touched
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
