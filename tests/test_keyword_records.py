"""Records are built by keyword: a dataclass of more than a few fields is keyword-only, so a call site names every
value it sets and a new or reordered field cannot shift the values of the others (28 calls built records with 8 to
14 positional arguments, `Comparison` with 14, and a merge once passed a starred list where a statistic belonged)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agenticvbench"
#: Fields above which a dataclass must be keyword-only.
MAX_POSITIONAL_FIELDS = 5
#: Dataclasses that are bases of others (keyword-only would force every subclass field to be keyword-only too).
BASES = {"Task"}


def _fields(cls: ast.ClassDef) -> int:
    return sum(
        isinstance(b, ast.AnnAssign) and not ast.unparse(b.annotation).startswith("ClassVar")
        for b in cls.body
    )


def _dataclass_call(cls: ast.ClassDef) -> ast.expr | None:
    return next((d for d in cls.decorator_list if "dataclass" in ast.unparse(d)), None)


def test_every_wide_dataclass_is_keyword_only() -> None:
    """Each dataclass of the package with more than MAX_POSITIONAL_FIELDS fields says `kw_only=True`."""
    wide = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or node.name in BASES:
                continue
            deco = _dataclass_call(node)
            if deco is None or _fields(node) <= MAX_POSITIONAL_FIELDS:
                continue
            keyword_only = isinstance(deco, ast.Call) and any(
                k.arg == "kw_only" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in deco.keywords
            )
            if not keyword_only:
                wide.append(f"{path.relative_to(PACKAGE.parent)}: {node.name} ({_fields(node)} fields)")
    assert not wide, "dataclasses to make keyword-only:\n" + "\n".join(wide)


def test_the_guard_sees_a_positional_record(tmp_path: Path) -> None:
    """The scan itself works: a wide dataclass without kw_only is found, one with it is not."""
    src = "from dataclasses import dataclass\n@dataclass\nclass A:\n" + "".join(
        f"    f{i}: int\n" for i in range(7)
    )
    tree = ast.parse(src)
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
    assert _fields(cls) == 7 and not isinstance(_dataclass_call(cls), ast.Call)
