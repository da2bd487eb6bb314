"""`avb harbor metric --format tsv`: agent-chosen names are defused like CSV cells."""

from __future__ import annotations

from agenticvbench.harbor.metric import GroupMetric, to_text
from agenticvbench.sanitize import csv_cell, tsv_cell


def _group(agent: str, model: str) -> GroupMetric:
    return GroupMetric(
        agent=agent, model=model, runs=1, families={"repair": 0.5}, macro=0.5, micro=0.5, cells=2
    )


def test_tsv_name_cells_starting_with_a_formula_character_are_defused():
    """The TSV table wrote an agent/model name such as `=HYPERLINK(...)` as is, while the CSV writers prefix it
    with `'`; spreadsheets open .tsv files and evaluate formulas, so the same rule applies to TSV cells."""
    names = ['=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "\uff1dcmd"]
    groups = [_group(n, n) for n in names]
    lines = to_text(groups, "tsv").splitlines()
    assert lines[0].split("\t")[:3] == ["agent", "model", "runs"]
    for name, line in zip(names, lines[1:], strict=True):
        agent, model, runs, *rest = line.split("\t")
        assert agent == model == "'" + name
        assert runs == "1" and rest[:3] == ["0.5000", "0.5000", "0.5000"]  # numbers untouched


def test_tsv_cell_follows_the_csv_rule_and_keeps_one_cell():
    """One rule for CSV and TSV cells; a tab or newline in a name is escaped, so it cannot add a cell or a row
    (and a leading tab, itself a formula start, is escaped to `\\t` text)."""
    for s in ("=1+1", "plain", "-x", "a\tb", "a\nb", "\t=1"):
        assert tsv_cell(s) == csv_cell(s)
        assert "\t" not in tsv_cell(s) and "\n" not in tsv_cell(s)
    assert to_text([_group("a\tb", "m\nn")], "tsv").splitlines()[1].split("\t")[:2] == ["a\\tb", "m\\nn"]
    assert to_text([_group("=1", "m")], "md").splitlines()[2].startswith("| =1 | m |")  # Markdown: no `'`
