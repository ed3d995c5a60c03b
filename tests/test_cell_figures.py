"""eval/cell_figures.py: majority baselines in-sample and leave-one-out, and the doubt ranking."""

from __future__ import annotations

from eval.cell_figures import DocValues, Metric, accuracy, doubt, figures, frequent_labels, micro_f1


def test_majority_baseline_leave_one_out_excludes_the_held_out_document() -> None:
    rows = {"g": [DocValues("a", "x", "x", "x"), DocValues("b", "y", "y", "y"), DocValues("c", "y", "x", "x")]}
    (fig,) = figures(rows, [Metric("g", "accuracy", accuracy)], {"all": {"a", "b", "c"}})
    assert fig.base_in == 2 / 3  # always "y"
    # a's others say y, y (wrong); b's and c's say x, y: a tie goes to the first seen, x (wrong)
    assert fig.base_loo == 0.0
    assert fig.tool_in == fig.tool_loo == 2 / 3 and fig.beats


def test_tool_equal_to_its_baseline_does_not_beat_it() -> None:
    rows = {"g": [DocValues(str(i), "x", "x", "x") for i in range(4)]}
    (fig,) = figures(rows, [Metric("g", "accuracy", accuracy)], {"all": {"0", "1", "2", "3"}})
    assert fig.base_loo == fig.tool_loo == 1.0 and not fig.beats


def test_frequent_labels_is_the_per_label_majority() -> None:
    assert frequent_labels([frozenset({"a", "b"}), frozenset({"a"}), frozenset()]) == frozenset({"a"})
    assert micro_f1([(frozenset({"a"}), frozenset({"a", "b"}))]) == 2 / 3


def test_doubt_auc_and_least_sure_share() -> None:
    d = doubt([(0.1, False), (0.2, False), (0.3, True), (0.9, True)], share=0.5)
    assert d.auc == 1.0 and d.wrong == 2 and d.wrong_in_least_sure == 2 and d.share == 1.0
    d = doubt([(0.5, True), (0.5, False)])
    assert d.auc == 0.5
