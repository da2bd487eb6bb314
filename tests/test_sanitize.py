"""`agenticvbench.sanitize`: each output kind escapes what would crash it, forge lines or inject markup, and
still shows what the agent wrote."""

from __future__ import annotations

import io
import json

from agenticvbench.sanitize import SafeStream, csv_cell, latex, markdown_document, md_cell, one_line, text


def test_surrogates_controls_and_bidi_are_escaped_not_dropped():
    """A lone surrogate cannot be encoded as UTF-8 (it crashed every command); escapes rewrite the terminal."""
    raw = "a\ud800b\x1b[2Jc\u202ed\x07"
    assert text(raw) == "a\\ud800b\\x1b[2Jc\\u202ed\\x07"
    text(raw).encode("utf-8")
    assert text("two\nlines\tok") == "two\nlines\tok"
    assert one_line("two\nlines\r\tx") == "two\\nlines\\r\\tx"


def test_markdown_has_no_raw_html_and_cells_stay_in_their_column():
    """Raw HTML in an agent string rendered as markup in the Markdown report."""
    assert markdown_document("# t\n<script>x</script>") == "# t\n&lt;script>x&lt;/script>"
    assert md_cell("a|b\n<i>") == "a\\|b\\n&lt;i>"


def test_markdown_keeps_a_less_than_that_opens_no_markup():
    """The leaderboard's "Not comparable" notes read `n=4 &lt; 120` in Markdown while CSV and LaTeX printed
    `n=4 < 120`: only a `<` that CommonMark could read as a tag, a comment or an autolink is neutralised."""
    assert markdown_document("n=4 < 120; p <= 0.05; <3") == "n=4 < 120; p <= 0.05; <3"
    assert md_cell("n=4 < 120") == "n=4 < 120"
    for markup in ("<img src=x>", "</b>", "<!-- x -->", "<?php", "<https://x.test>", "<Script>"):
        assert markdown_document(markup).startswith("&lt;") and md_cell(markup).startswith("&lt;"), markup


def test_csv_formulas_are_defused_and_latex_is_escaped():
    """`=HYPERLINK(...)` in a harness name ran as a formula when the leaderboard CSV was opened."""
    assert csv_cell('=HYPERLINK("http://x")') == '\'=HYPERLINK("http://x")'
    assert csv_cell("+1") == "'+1" and csv_cell("@x") == "'@x" and csv_cell("plain") == "plain"
    assert csv_cell(0.5) == 0.5
    assert latex("50% of $x_1\n") == r"50\% of \$x\_1\textbackslash{}n"


def test_safe_stream_keeps_json_valid_and_escapes_the_rest():
    """The CLI's stdout wrapper: JSON printed with raw surrogates stays parseable; escapes never reach it."""
    buf = io.StringIO()
    s = SafeStream(buf)
    json.dump({"k": "\ud800"}, s, ensure_ascii=False)
    s.write("\n\x1b[31m")
    first, second = buf.getvalue().split("\n", 1)
    assert json.loads(first) == {"k": "\ud800"} and second == "\\x1b[31m"
