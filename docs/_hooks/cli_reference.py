"""MkDocs hook: the committed command-line reference must equal a fresh rendering of the argparse parser.

A command or option added without regenerating the page is a build warning, so `mkdocs build --strict` fails
and says how to regenerate (`python -m agenticvbench.cli.reference docs/reference/cli.md`).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

LOG = logging.getLogger("mkdocs.plugins.agenticvbench")
ROOT = Path(__file__).resolve().parents[2]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Compare reference/cli.md with the page the parser renders today; warn (an error under --strict) if stale."""
    if page.file.src_uri != "reference/cli.md":
        return markdown
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from agenticvbench.cli.reference import PAGE, render

    if markdown.strip() != render().strip():
        LOG.warning(
            "%s is out of date with the argparse parser (a command or option is not listed); "
            "regenerate it: python -m agenticvbench.cli.reference %s",
            PAGE,
            PAGE,
        )
    return markdown
