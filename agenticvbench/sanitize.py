"""The one sanitiser of agent-supplied strings, applied where they are shown or written.

Clip ids, run.json identities, file names and whatever a planted result file holds are chosen by the agent being
scored. Shown raw they can crash a command (a lone surrogate `"\\ud800"` cannot be encoded as UTF-8), rewrite the
terminal (escape sequences), forge lines (newlines), inject markup into a Markdown report (raw HTML), run a
formula in a spreadsheet (`=HYPERLINK(...)` in a CSV cell) or break a LaTeX table. Each output kind has one
function here; nothing is ever dropped silently, it is shown escaped (`\\x1b`, `\\n`, `\\ud800`), so the text
still says what the agent wrote.

- `text`: lone surrogates, C0/C1 control characters (but newline and tab) and bidirectional overrides escaped;
- `one_line`: `text`, with newlines, carriage returns and tabs escaped too (reasons, identities, cells);
- `markdown_document`: a rendered Markdown document with raw HTML neutralised (a `<` that could open a tag, a
  comment or an autolink -> `&lt;`; `n=4 < 120` stays as written);
- `md_cell`, `csv_cell`, `tsv_cell`, `latex`: one cell of a Markdown table, a CSV file, a TSV file, a LaTeX
  table (CSV and TSV cells defused by the same rule: spreadsheets open both and evaluate formulas);
- `SafeStream` / `safe_streams`: stdout/stderr wrappers for the CLI, escaping controls and surrogates in
  everything printed (the belt to the braces above; `--json` output stays valid JSON).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

#: Lone surrogates, C0 controls but \t \n \r, DEL, C1 controls, and the bidi embedding/override/isolate marks.
_UNSAFE = re.compile(
    "[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]"
)
_UNSAFE_LINE = re.compile("[\ud800-\udfff\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: A `<` that starts raw HTML (a tag, a closing tag, a comment, a declaration, a processing instruction) or an
#: autolink in CommonMark: one followed by a letter, `/`, `!` or `?`.
_MARKUP_START = re.compile(r"<(?=[A-Za-z/!?])")
#: A CSV cell starting with one of these is read as a formula by spreadsheets (OWASP CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


#: Marks of `analysis.comparability` that LaTeX's default set-up cannot print, as commands (the others, † ‡ §, print).
_LATEX_SYMBOLS = {"\u25ca": r"$\diamond$"}
#: Symbols LaTeX's default set-up (utf8 input, OT1 fonts) prints; its letters from U+00C0 to U+017F print
#: too, but for these (they need T1 fonts or have no definition).
_LATEX_PRINTS = frozenset("\u00a1\u00a3\u00a7\u00a9\u00ae\u00b0\u00b1\u00b5\u00b6\u00b7\u00bf\u2020\u2021")
_LATEX_MISSING = frozenset(
    "\u00d0\u00de\u00f0\u00fe\u0104\u0105\u0110\u0111\u0118\u0119\u0126\u0127\u012e\u012f\u0138\u013f\u0140\u0149\u014a\u014b\u0166\u0167\u0172\u0173\u017f"
)


def _latex_char(ch: str) -> str:
    """One character as pdflatex's default set-up can print it: ASCII specials escaped, the tables' marks as
    commands, Latin letters with their accents as they are; anything else (an emoji in a model name) as `[U+XXXX]`, so a
    table with any name compiles."""
    if ch.isascii():
        return _LATEX_SPECIAL.get(ch, ch)
    if ch in _LATEX_SYMBOLS:
        return _LATEX_SYMBOLS[ch]
    if ch in _LATEX_PRINTS or ("\u00c0" <= ch <= "\u017f" and ch not in _LATEX_MISSING):
        return ch
    return f"[U+{ord(ch):04X}]"


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text(value: Any) -> str:
    """`str(value)` safe to print or encode: surrogates, control characters (not newline/tab) and bidi marks
    escaped."""
    s = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escape, s)


def one_line(value: Any) -> str:
    """`text`, on one line: newline, carriage return and tab escaped as well."""
    s = value if isinstance(value, str) else str(value)
    return _UNSAFE_LINE.sub(_escape, s)


def _no_html(s: str) -> str:
    """`s` with every `<` that CommonMark could read as markup (raw HTML or an autolink: `<` followed by a letter,
    `/`, `!` or `?`) written `&lt;`; any other `<` (`n=4 < 120`, `p <= 0.05`) is plain text and stays."""
    return _MARKUP_START.sub("&lt;", s)


def markdown_document(document: str) -> str:
    """A rendered Markdown document with raw HTML neutralised and unsafe characters escaped (our Markdown never
    contains HTML, so no `<` may open a tag: `_no_html`)."""
    return _no_html(text(document))


def md_cell(value: Any) -> str:
    """One Markdown table cell: one line, `|` escaped, raw HTML neutralised (`_no_html`)."""
    return _no_html(one_line(value).replace("|", "\\|"))


def csv_cell(value: Any) -> Any:
    """One CSV cell: strings on one line, and a leading formula character defused with a `'` (non-strings are
    returned unchanged)."""
    if not isinstance(value, str):
        return value
    s = one_line(value)
    return "'" + s if s.startswith(_FORMULA_START) else s


def tsv_cell(value: Any) -> str:
    """One TSV cell: on one line (a tab is escaped as `\\t`, so it cannot split the cell) and a leading formula
    character defused with a `'`, the rule of `csv_cell` (spreadsheets open .tsv files and evaluate formulas)."""
    return csv_cell(one_line(value))


def latex(value: Any) -> str:
    """One LaTeX text fragment: special characters escaped, on one line."""
    return "".join(map(_latex_char, one_line(value)))


class SafeStream:
    """A text stream wrapper whose `write` escapes control characters (but newline, tab and carriage return,
    which progress bars use) and lone surrogates; everything else is delegated to the wrapped stream."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        """Write `s` escaped; returns the length of `s` (what callers of `write` expect)."""
        self._stream.write(_UNSAFE.sub(_escape, s))
        return len(s)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def safe_streams() -> Iterator[None]:
    """Wrap `sys.stdout` and `sys.stderr` in `SafeStream` for the duration of the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = SafeStream(out) if not isinstance(out, SafeStream) else out  # type: ignore[assignment]
    sys.stderr = SafeStream(err) if not isinstance(err, SafeStream) else err  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
