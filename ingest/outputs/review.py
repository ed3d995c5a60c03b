"""Review: what a curator needs to settle automatic cells, and how often the automatic reading agrees.

Pure functions over the stored `comparison` and `evidence` tables (no I/O besides the
`agreement_table(store)` wrapper), shared by the dashboard's Review and Evidence pages and the
`agreement` export. Dimensions, their kinds and categories always come from the lens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pandas as pd

from ingest.analysis.comparison import SEP
from ingest.analysis.confidence import NONE_SURE, Model, load_model
from ingest.analysis.lens import Lens, load_lens
from ingest.store.store import Store

AGREEMENT_COLUMNS = ["dimension", "label", "reports", "automatic", "curated", "both", "agree", "disagree", "agreement"]


def split(value: object) -> list[str]:
    """A stored cell's categories (several are joined by '; ')."""
    return [v.strip() for v in str(value).split(SEP.strip()) if v.strip()] if isinstance(value, str) else []


def _present(v: object) -> bool:
    return isinstance(v, str) and bool(v.strip())


def agreement(comparison: pd.DataFrame, lens: Lens) -> pd.DataFrame:
    """Per lens dimension: how many reports have an automatic cell, a curated one, both, and of
    those how many agree (same categories, as the table's `disagree` flag says) — with the share.

    `agreement` is empty (not 0) when no report has both, so "never checked" is not "always wrong".
    """
    rows = []
    for dim in lens.dimensions:
        c = comparison[comparison["dimension"] == dim.id] if not comparison.empty else comparison
        auto = c["auto_value"].map(_present) if len(c) else pd.Series(dtype=bool)
        cur = (c["origin"] == "curated") if len(c) else pd.Series(dtype=bool)
        both = auto & cur
        dis = both & (c["disagree"].fillna(False).astype(bool) if len(c) else both)
        n_both, n_dis = int(both.sum()), int(dis.sum())
        rows.append(
            {
                "dimension": dim.id,
                "label": dim.label,
                "reports": int(c["report_id"].nunique()) if len(c) else 0,
                "automatic": int(auto.sum()),
                "curated": int(cur.sum()),
                "both": n_both,
                "agree": n_both - n_dis,
                "disagree": n_dis,
                "agreement": round((n_both - n_dis) / n_both, 3) if n_both else None,
            }
        )
    df = pd.DataFrame(rows, columns=AGREEMENT_COLUMNS)
    df["agreement"] = df["agreement"].astype(float)  # NaN (blank in CSV and Markdown) where nothing was checked
    return df


def agreement_table(store: Store) -> pd.DataFrame:
    """The `agreement` export: `agreement` of the stored comparison table under the default lens."""
    return agreement(store.read_table("comparison"), load_lens())


def unreviewed(comparison: pd.DataFrame, report_id: str) -> list[str]:
    """Dimensions of a report with an automatic cell and no curated one (lens order as stored)."""
    if comparison.empty:
        return []
    c = comparison[(comparison["report_id"] == report_id) & (comparison["origin"] == "auto")]
    return c["dimension"].tolist()


def evidence_dimension(lens: Lens, dim_id: str) -> str:
    """Which dimension's evidence rows back a cell: a `mentioned` dimension shares its source's."""
    d = lens.dimension(dim_id)
    return d.source if d.kind == "mentioned" and d.source else d.id


def ranked_evidence(evidence: pd.DataFrame, lens: Lens, report_id: str, dim_id: str) -> pd.DataFrame:
    """The candidate sentences behind one cell, best first within each category."""
    cols = ["category", "rank", "score", "quote", "page", "page_label", "section"]
    if evidence.empty:
        return pd.DataFrame(columns=cols)
    ev = evidence[(evidence["report_id"] == report_id) & (evidence["dimension"] == evidence_dimension(lens, dim_id))]
    return ev.sort_values(["category", "rank"], kind="stable")[[c for c in cols if c in ev.columns]].reset_index(drop=True)


def page_of(page: object, label: object) -> int | str | None:
    """What a curated cell's `page:` holds: the PDF page number, or a post's section label
    (a Markdown/HTML document's "page" is a block number, its label names the section)."""
    has_page = page is not None and not pd.isna(page)
    if isinstance(label, str) and label.strip() and (not has_page or label.strip() != str(int(page))):
        return label.strip()
    return int(page) if has_page else None


def best_quote(evidence: pd.DataFrame, values: list[str]) -> tuple[str | None, int | str | None]:
    """(quote, page) of the best sentence supporting the first of `values` that has one, from
    `ranked_evidence` rows; page is the PDF page, or the section label of a post. (None, None) if none."""
    if evidence.empty:
        return None, None
    for v in values:
        ev = evidence[evidence["category"].astype(str).str.lower() == v.lower()]
        if len(ev):
            r = ev.sort_values("rank").iloc[0]
            return str(r["quote"]), page_of(r.get("page"), r.get("page_label"))
    return None, None


def auto_beside_curated(comparison: pd.DataFrame, evidence: pd.DataFrame, report: str, dim_id: str,
                        lens: Lens | None = None) -> pd.DataFrame:  # fmt: skip
    """For each disagreeing cell of a dimension (one report, or "*" for all): the curated value beside
    the automatic value and the automatic evidence that supports it (ranked sentences with page).

    A curated row of the comparison table keeps only the automatic *value*; its quotes are in the
    evidence table under the automatic categories (for level dimensions, under the indicators that
    fired, which all count towards the level).
    """
    cols = ["report_id", "curated_value", "auto_value", "category", "rank", "quote", "page_label", "section"]
    if comparison.empty or "disagree" not in comparison.columns:
        return pd.DataFrame(columns=cols)
    lens = lens or load_lens()
    if dim_id not in lens.ids:
        return pd.DataFrame(columns=cols)
    c = comparison[(comparison["dimension"] == dim_id) & comparison["disagree"].fillna(False).astype(bool)]
    if report != "*":
        c = c[c["report_id"] == report]
    level = lens.dimension(dim_id).kind == "level"
    rows = []
    for r in c.itertuples():
        ev = ranked_evidence(evidence, lens, str(r.report_id), dim_id)
        wanted = {v.lower() for v in split(r.auto_value)}
        mine = ev if level else ev[ev["category"].astype(str).str.lower().isin(wanted)]
        base = {"report_id": r.report_id, "curated_value": r.value, "auto_value": r.auto_value}
        if mine.empty:
            rows.append(base | {"category": None, "rank": None, "quote": None, "page_label": None, "section": None})
        for e in mine.itertuples():
            label = e.page_label if isinstance(e.page_label, str) and e.page_label else (None if pd.isna(e.page) else str(e.page))
            rows.append(base | {"category": e.category, "rank": e.rank, "quote": e.quote, "page_label": label,
                                "section": e.section})  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


QUEUE_COLUMNS = ["report_id", "dimension", "auto_value", "confidence"]


def review_queue(comparison: pd.DataFrame) -> pd.DataFrame:
    """Automatic cells not yet curated, least sure first (a cell without a confidence first of all),
    ties by report and dimension so the order is stable."""
    if comparison.empty:
        return pd.DataFrame(columns=QUEUE_COLUMNS)
    c = comparison[(comparison["origin"] == "auto") & comparison["auto_value"].map(_present)]
    c = c[QUEUE_COLUMNS].copy()
    c["_conf"] = c["confidence"].astype("Float64").fillna(-1.0)
    return c.sort_values(["_conf", "report_id", "dimension"], kind="stable").drop(columns="_conf").reset_index(drop=True)


def confident_counts(comparison: pd.DataFrame) -> tuple[int, int]:
    """(automatic cells at or above the confidence model's threshold, all automatic cells), curated or not."""
    if comparison.empty:
        return 0, 0
    auto = comparison[comparison["auto_value"].map(_present)]
    conf = auto["confidence"].astype("Float64")
    return int((conf >= load_model().threshold).fillna(False).sum()), len(auto)


#: The share of the review queue (least sure first) whose expected wrong cells the Review page states.
FIRST_SHARE = 1 / 3


@dataclass(frozen=True)
class QueueDoubt:
    """What the least-sure part of the review queue is expected to hold: the expected wrong cells are the
    sum of (1 - confidence), the confidence being the model's probability that a cell is right."""

    pending: int  # automatic cells not yet curated
    first: int  # cells in the least-sure share
    wrong_first: float  # expected wrong cells among them
    wrong_all: float  # expected wrong cells in the whole queue


def queue_doubt(comparison: pd.DataFrame, share: float = FIRST_SHARE) -> QueueDoubt:
    """The expected wrong cells of the least-sure `share` of the review queue and of all of it; a cell
    without a confidence counts as an even chance."""
    q = review_queue(comparison)
    conf = [float(x) if pd.notna(x) else 0.5 for x in q["confidence"]]
    k = round(share * len(conf))
    return QueueDoubt(len(conf), k, sum(1 - c for c in conf[:k]), sum(1 - c for c in conf))


def labels_confident(model: Model | None = None) -> bool:
    """Whether the model labels any cell "confident": its threshold is one that was right >= 95% of the
    time leave-one-document-out (eval/train_confidence.py sets 0.999, nothing, when no cut was)."""
    return (model or load_model()).threshold < NONE_SURE


def queue_reports(comparison: pd.DataFrame) -> list[str]:
    """The reports of the review queue in its order (the least sure pending cell first), each once."""
    return list(dict.fromkeys(review_queue(comparison)["report_id"].astype(str)))


def next_in_queue(order: Iterable[str], after: str | None = None, usable: Callable[[str], bool] | None = None) -> str | None:
    """The first report of `order` (see `queue_reports`) other than `after`, the report on screen; else
    `after` itself when it is the only one; None when `order` has none. With `usable`, only reports it
    accepts count, tested down the queue only until one is found (a file test per report costs)."""
    stay = None
    for r in order:
        if usable is not None and not usable(r):
            continue
        if r != after:
            return r
        stay = r
    return stay


def next_least_sure(comparison: pd.DataFrame, after: str | None = None) -> str | None:
    """The report holding the least sure pending cell (skipping `after`, the report on screen, while
    another report has pending cells); None when every automatic cell is settled."""
    return next_in_queue(queue_reports(comparison), after)
