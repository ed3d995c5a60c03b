"""Every comparison cell beside its trivial answer, and how well the cell scores rank doubt.

Why: a figure means nothing without the answer that needs no reading. For each dimension this
prints the majority-class baseline (the most frequent gold value — a whole set for the set-valued
dimensions — of the documents it is computed from) and the tool, in-sample and leave-one-document-
out, for the older and the newest label blocks apart (eval/label_blocks.py). A dimension whose tool
figure does not beat its baseline leave-one-out is flagged: that is a bug, whatever its in-sample
score.

Leave-one-out for the tool: whatever is fitted on labels (the level cut points, the confidence
model) is fitted without the held-out document; the cues and rules are not fitted, so their cells
are the same in both columns (they were written reading the older block, which is why the newest
block is printed apart). The doubt ranking: AUC of each cell's leave-one-out score for "the cell
is right", and the share of the wrong cells that the least-sure 35% of cells hold (Review shows
the least sure first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

#: Share of cells, least sure first, whose haul of wrong cells is reported (issue 33).
LEAST_SURE = 0.35


@dataclass(frozen=True)
class DocValues:
    """What the gold and the tool say for one document and one dimension (a label, a set or a level index)."""

    doc: str
    gold: Hashable
    tool: Hashable
    tool_loo: Hashable


@dataclass(frozen=True)
class Metric:
    """How one dimension is scored: its name, the metric, and the score of (gold, predicted) pairs."""

    dim: str
    name: str
    score: Callable[[Sequence[tuple[Hashable, Hashable]]], float]
    percent: bool = True
    #: the trivial answer from the gold values of the documents used (default: the majority class)
    trivial: Callable[[Sequence[Hashable]], Hashable] | None = None


@dataclass(frozen=True)
class Figure:
    """One line of the table: a metric on one split, majority baseline and tool, in-sample and leave-one-out."""

    dim: str
    metric: str
    split: str
    n: int
    base_in: float
    tool_in: float
    base_loo: float
    tool_loo: float
    percent: bool = True

    @property
    def beats(self) -> bool:
        """The tool beats the trivial answer leave-one-out (ties do not count)."""
        return self.tool_loo > self.base_loo + 1e-9


def accuracy(pairs: Sequence[tuple[Hashable, Hashable]]) -> float:
    return sum(g == p for g, p in pairs) / len(pairs) if pairs else 0.0


def within_one(pairs: Sequence[tuple[Hashable, Hashable]]) -> float:
    return sum(abs(int(g) - int(p)) <= 1 for g, p in pairs) / len(pairs) if pairs else 0.0  # type: ignore[call-overload]


def micro_f1(pairs: Sequence[tuple[Hashable, Hashable]]) -> float:
    tp = sum(len(g & p) for g, p in pairs)  # type: ignore[operator]
    fp = sum(len(p - g) for g, p in pairs)  # type: ignore[operator]
    fn = sum(len(g - p) for g, p in pairs)  # type: ignore[operator]
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def majority(values: Sequence[Hashable]) -> Hashable:
    """The most frequent value; ties go to the one seen first (the order of the labels file)."""
    counts = Counter(values)
    return max(counts, key=lambda v: (counts[v], -values.index(v)))


def frequent_labels(values: Sequence[Hashable]) -> Hashable:
    """For a set-valued dimension scored by micro-F1: every label at least half the documents carry
    (the per-label majority answer; the majority *set* is often the empty one)."""
    counts = Counter(x for v in values for x in v)  # type: ignore[attr-defined]
    return frozenset(x for x, c in counts.items() if 2 * c >= len(values))


def figures(rows: dict[str, list[DocValues]], metrics: list[Metric], splits: dict[str, set[str]]) -> list[Figure]:
    """Every metric on every split: majority baseline (of all documents in-sample, of the other documents
    leave-one-out) and the tool (in-sample, leave-one-out)."""
    out = []
    for m in metrics:
        docs = rows[m.dim]
        golds = [d.gold for d in docs]
        trivial = m.trivial or majority
        top = trivial(golds)
        loo_top = {d.doc: trivial(golds[:i] + golds[i + 1 :]) for i, d in enumerate(docs)}
        for split, ids in splits.items():
            part = [d for d in docs if d.doc in ids]
            if not part:
                continue
            out.append(
                Figure(
                    m.dim,
                    m.name,
                    split,
                    len(part),
                    m.score([(d.gold, top) for d in part]),
                    m.score([(d.gold, d.tool) for d in part]),
                    m.score([(d.gold, loo_top[d.doc]) for d in part]),
                    m.score([(d.gold, d.tool_loo) for d in part]),
                    m.percent,
                )
            )
    return out


def format_figures(figs: list[Figure]) -> list[str]:
    """The table: one line per dimension, metric and split; BELOW marks a tool at or under its baseline LOO."""

    def f(x: float, pct: bool) -> str:
        return f"{x:>6.0%}" if pct else f"{x:>6.2f}"

    lines = [
        "cells vs the trivial answer (majority = most frequent gold value of the documents used, for micro-F1 every "
        "label at least half of them carry; LOO = leave-one-document-out)",
        f"  {'dimension':<22} {'metric':<12} {'split':<9} {'majority':>8} {'tool':>6}   {'majority':>8} {'tool':>6}",
        f"  {'':<22} {'':<12} {'':<9} {'in-sample':>15}   {'LOO':>15}",
    ]
    for x in figs:
        flag = "" if x.beats else "  BELOW baseline LOO"
        lines.append(
            f"  {x.dim:<22} {x.metric:<12} {x.split + ' ' + str(x.n):<9} {f(x.base_in, x.percent):>8} "
            f"{f(x.tool_in, x.percent)}   {f(x.base_loo, x.percent):>8} {f(x.tool_loo, x.percent)}{flag}"
        )
    return lines


@dataclass(frozen=True)
class Doubt:
    """How well cell scores rank doubt: AUC for "right", and the wrong cells among the least sure."""

    n: int
    wrong: int
    auc: float
    least_sure: int  # cells in the least-sure share
    wrong_in_least_sure: int

    @property
    def share(self) -> float:
        return self.wrong_in_least_sure / self.wrong if self.wrong else 1.0


def doubt(scored: Sequence[tuple[float, bool]], share: float = LEAST_SURE) -> Doubt:
    """AUC (ties count half) of the score for "cell is right", and how many wrong cells the least-sure
    `share` of cells hold (least sure first; ties broken toward the wrong cells never, by input order)."""
    pos = [s for s, ok in scored if ok]
    neg = [s for s, ok in scored if not ok]
    pairs = len(pos) * len(neg)
    auc = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg) / pairs if pairs else 0.5
    k = round(share * len(scored))
    order = sorted(range(len(scored)), key=lambda i: scored[i][0])[:k]
    return Doubt(len(scored), len(neg), auc, k, sum(not scored[i][1] for i in order))


def format_doubt(name: str, d: Doubt) -> str:
    return (
        f"doubt ranking ({name}): AUC of the cell score for 'cell is right' {d.auc:.2f} over {d.n} cells; "
        f"the least-sure {LEAST_SURE:.0%} ({d.least_sure} cells) hold {d.wrong_in_least_sure}/{d.wrong} = "
        f"{d.share:.1%} of the wrong cells"
    )
