"""The verdict of `compare_runs` follows the evidence: the p-value (Holm for a family) and the interval must agree
before a row says 'A better' / 'B better'; a zero-width interval and an interval past the possible range are named;
the caption states the degrees of freedom the interval really used."""

from __future__ import annotations

import pytest

from agenticvbench.analysis.compare import RANGE_MARK, compare_runs


def _pair(mk, a: dict[int, tuple[str, float]], b: dict[int, tuple[str, float]]):
    ra = [mk(t, f, s, harness="ha", path="/runs/a") for t, (f, s) in a.items()]
    rb = [mk(t, f, s, harness="hb", path="/runs/b") for t, (f, s) in b.items()]
    return {r.cell: r for r in compare_runs(ra, rb).rows}, compare_runs(ra, rb)


def test_two_tasks_differing_by_100_are_not_a_verdict(mk):
    """Two recap tasks both +100 points and seven tied tasks elsewhere: the recap interval is [+100, +100] (zero
    width, so it 'excludes 0') while the exact sign-flip p is 2/4 = 0.5. Before, the row said 'A better' next to
    p = 0.500; now it says no detectable difference and why."""
    a = {1: ("recap", 1.0), 2: ("recap", 1.0), **{t: ("sequencing", 0.5) for t in range(37, 44)}}
    b = {1: ("recap", 0.0), 2: ("recap", 0.0), **{t: ("sequencing", 0.5) for t in range(37, 44)}}
    rows, _ = _pair(mk, a, b)
    recap = rows["recap"]
    assert recap.stat.ci_low == pytest.approx(1.0) and recap.stat.ci_high == pytest.approx(1.0)
    assert recap.stat.p_value == pytest.approx(0.5)
    assert recap.verdict == "no detectable difference (interval has zero width)"


def test_an_interval_excluding_zero_with_a_large_p_is_no_verdict(mk):
    """Three recap tasks at +50, +60, +70: the t interval (mean 60, SE 5.77, t(0.975, 2) = 4.303) is [+35.2,
    +84.8], but with 3 clusters the exact sign-flip p cannot go below 2/8 = 0.25: no detectable difference, and
    the row says no verdict is possible with 3 clusters."""
    a = {1: ("recap", 0.5), 2: ("recap", 0.6), 3: ("recap", 0.7)}
    b = {1: ("recap", 0.0), 2: ("recap", 0.0), 3: ("recap", 0.0)}
    rows, _ = _pair(mk, a, b)
    assert rows["recap"].stat.ci_low == pytest.approx(0.6 - 4.302652729911275 * 0.1 / 3**0.5)
    assert rows["recap"].stat.detectable and rows["recap"].stat.p_value == pytest.approx(0.25)
    assert rows["recap"].verdict == "no detectable difference (no verdict possible: 3 clusters)"
    assert rows["macro"].verdict.startswith("no detectable difference") and not rows["macro"].reachable


def test_a_family_verdict_uses_the_holm_adjusted_p(mk):
    """Six recap tasks all ahead (distinct gains): raw exact p = 2/64 = 0.031 < 0.05 and the interval excludes 0,
    but across the 4 families compared Holm makes it 4 x 0.031 = 0.125: no verdict for recap, and since 2/64 is
    the smallest p 6 clusters can give, none is possible (the MDD column says so instead of a number)."""
    gains = [0.1, 0.2, 0.3, 0.25, 0.15, 0.35]
    a = {t: ("recap", 0.4 + g) for t, g in zip(range(1, 7), gains, strict=True)}
    b = {t: ("recap", 0.4) for t in range(1, 7)}
    for fam, ids, sa, sb in (
        ("sequencing", (37, 38, 39), (0.1, 0.5, 0.2), (0.3, 0.1, 0.2)),
        ("repair", (65, 66, 67), (0.3, 0.2, 0.9), (0.4, 0.1, 0.9)),
        ("assembly", (83, 84, 85), (0.6, 0.5, 0.4), (0.2, 0.7, 0.4)),
    ):
        a.update({t: (fam, s) for t, s in zip(ids, sa, strict=True)})
        b.update({t: (fam, s) for t, s in zip(ids, sb, strict=True)})
    rows, _ = _pair(mk, a, b)
    recap = rows["recap"]
    assert recap.stat.p_value == pytest.approx(2 / 64) and recap.stat.detectable
    assert recap.p_holm == pytest.approx(4 * 2 / 64)
    assert recap.verdict == "no detectable difference (no verdict possible: 6 clusters)"
    assert recap.mdd_text == "no verdict possible (6 clusters)" and rows["macro"].reachable


def test_a_clear_difference_is_still_a_verdict(mk):
    """Twenty recap tasks each 30 to 49 points ahead: p < 0.001 (random flips) and the interval far from 0."""
    a = {t: ("recap", 0.3 + 0.01 * t) for t in range(1, 21)}
    b = {t: ("recap", 0.0) for t in range(1, 21)}
    rows, _ = _pair(mk, a, b)
    assert rows["recap"].verdict == "A better" and rows["macro"].verdict == "A better"


def test_the_caption_states_the_df_used_and_marks_intervals_past_the_range(mk):
    """Three recap tasks at +100, +100, +90 points: the interval (mean 96.7, SE 3.33, t_2) runs to +111, past
    what a difference of scores in [0, 1] can be; it is shown as computed and marked, and the caption says
    what the mark means. The caption names the df rule the code uses (Bell-McCaffrey), with each row's df
    (recap: 3 equal clusters in 1 family = 2.0), never 'clusters - 1 df'."""
    a = {1: ("recap", 1.0), 2: ("recap", 1.0), 3: ("recap", 0.9)}
    b = {1: ("recap", 0.0), 2: ("recap", 0.0), 3: ("recap", 0.0)}
    rows, comp = _pair(mk, a, b)
    assert rows["recap"].stat.ci_high > 1 and rows["recap"].out_of_range
    text = comp.render("md")
    assert f"{RANGE_MARK}" in text.split("\n\n")[0] and "past the possible range" in comp.caption
    assert "Bell-McCaffrey degrees of freedom" in comp.caption and "clusters - 1 df" not in comp.caption
    assert "recap 2.0" in comp.caption and rows["recap"].stat.df == pytest.approx(2)
