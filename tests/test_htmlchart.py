"""Plain HTML scatter (views/htmlchart.py): no mark on an axis line, names that do not pile up."""

from __future__ import annotations

import re

from views import htmlchart as hc

MARK = re.compile(r'class="m[^"]*"[^>]*style="left:([\d.]+)%;top:([\d.]+)%')
LABEL = re.compile(r'<span class="n" style="left:([\d.]+)%;top:([\d.]+)%">([^<]*)</span>')


def test_points_at_zero_sit_inside_the_plot_not_on_an_axis_line() -> None:
    pts = [hc.Point(0.0, 0.0, "s", "a"), hc.Point(10.0, 3.0, "s", "b")]
    marks = [(float(x), float(y)) for x, y in MARK.findall(hc.scatter("t", pts, {"s": "#000"}, "x", "y"))]
    assert marks and all(hc.PAD <= x <= 100 - hc.PAD and hc.PAD <= y <= 100 - hc.PAD for x, y in marks)


def test_labels_of_points_near_zero_do_not_overlap() -> None:
    pts = [hc.Point(0.0, 0.01 * i, "s", f"Report {i}") for i in range(12)]
    out = hc.scatter("t", pts, {"s": "#000"}, "x", "y")
    labels = [(float(x), float(y), t) for x, y, t in LABEL.findall(out)]
    assert labels  # some are written; the others keep their name in the mark's hover text
    for i, (x1, y1, t1) in enumerate(labels):
        for x2, y2, t2 in labels[i + 1 :]:
            wide = hc.LABEL_CHAR_W * (len(t1) + len(t2)) / 2
            assert abs(x1 - x2) > wide or abs(y1 - y2) >= hc.LABEL_H, (t1, t2)
    assert out.count('title="Report') == 12


def test_points_of_one_category_stand_side_by_side() -> None:
    pts = [hc.Point("low", float(50 + i), "s", f"R{i}") for i in range(4)]
    xs = {float(x) for x, _ in MARK.findall(hc.scatter("t", pts, {"s": "#000"}, "x", "y", categories=["none", "low"]))}
    assert len(xs) == 4 and all(50 < x < 100 for x in xs)


def test_html_tables_skip_layout_while_off_screen() -> None:
    """Tables below the fold are not laid out until scrolled near (`content-visibility: auto`, with a
    placeholder height), which made the long pages' first render cheaper (docs/performance.md)."""
    from views import htmltable

    rule = htmltable.CSS.split(".frl-qwrap{", 1)[1].split("}", 1)[0]
    assert "content-visibility:auto" in rule and "contain-intrinsic-size:auto" in rule


def test_charts_are_laid_out_off_screen_so_a_picker_below_them_stays_open() -> None:
    """Charts skipped while off screen took their real height only when scrolled near: a picker below
    them, scrolled into view and clicked, saw the page jump and its list close (bench/picker_opens.py:
    Benchmarks' keyword picker failed in 6 of 10 tabs with the rule, 0 of 10 without)."""
    rule = hc.CSS.split(".frl-c{", 1)[1].split("}", 1)[0]
    assert "content-visibility" not in rule and "contain-intrinsic-size" not in rule
