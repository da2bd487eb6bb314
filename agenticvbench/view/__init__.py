"""`avb view`: look at runs in the browser, each output beside what was expected, with the scorer's evidence.

`build_model` reads runs and tasks; `ViewApp` + `make_server` serve them on 127.0.0.1 with a session token;
`write_bundle` writes the public static site (no answers, no verifier-only files). See docs/guide/look-at-a-run.md.
"""

from agenticvbench.view.bundle import write_bundle
from agenticvbench.view.model import ViewModel, build_model
from agenticvbench.view.server import ViewApp, make_server, url_of
from agenticvbench.view.thumbs import Thumbnailer

__all__ = ["Thumbnailer", "ViewApp", "ViewModel", "build_model", "make_server", "url_of", "write_bundle"]
