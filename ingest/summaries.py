"""Study-form tables (summary, stats, tiers) from the stored tables, as pure functions.

Shared by the CLI (`python -m ingest export`) and the dashboard, so the Markdown a user
pastes into a write-up is exactly what the tests check against the study. Every function
here takes DataFrames and returns a DataFrame; only the `*_table(store)` wrappers read files.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd

from .lens import NOT_ASSESSED, NOT_DISCLOSED, load_lens
from .lexicon import load_lexicon
from .schema import DocType
from .store import Store

__all__ = ["NOT_ASSESSED", "NOT_DISCLOSED"]

Source = Literal["reported", "measured"]

#: The comparison dimensions the summary shows, in the study's column order (ids from the lens).
SUMMARY_DIMENSIONS: tuple[str, ...] = ("reward_source", "credit_granularity", "rl_algorithm", "disclosure")
#: Lexicon group whose terms form the statistics table (data/lexicon.yaml).
STATS_GROUP = "study"
#: How the study names each schema doc type in its tier table.
DOC_KINDS: dict[str, str] = {
    "github-pdf": "PDF tech report on GitHub (no arXiv)",
    "arxiv": "arXiv preprint",
    "blog": "official blog post",
    "other": "other document",
}
#: Dimensions whose value is a level (the summary prints the level; the detail explains it).
LEVEL_DIMENSIONS: tuple[str, ...] = ("disclosure", "rl_disclosure")


@dataclass(frozen=True)
class Dimension:
    """One comparison dimension as the app and exports show it."""

    id: str
    label: str
    categories: tuple[str, ...] = ()
    kind: str = ""


def load_dimensions() -> list[Dimension]:
    """Dimensions, labels and categories from the lens YAML (data/lenses/agentic_rl.yaml)."""
    return [Dimension(d.id, d.label, tuple(d.values), str(d.kind)) for d in load_lens().dimensions]


def study_terms() -> list[str]:
    """Terms of the lexicon's study group, in lexicon order."""
    return [t.name for t in load_lexicon().group(STATS_GROUP).terms]


# ---------------------------------------------------------------------------------------- stats
def _is_blank(v: object) -> bool:
    return v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA


def _density(count: float, words: float) -> str:
    """Per 1,000 words, one decimal, rounded half up as a reader would by hand."""
    from decimal import ROUND_HALF_UP, Decimal

    d = Decimal(int(count)) * 1000 / Decimal(int(words))
    return str(d.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _figures(
    reports: pd.DataFrame, reported: pd.DataFrame, counts: pd.DataFrame, terms: Sequence[str], source: Source
) -> list[dict]:
    """Per report: words, term -> count, term -> note, and which figures were used."""
    rep = reported[reported["term"].notna()] if not reported.empty else reported
    meas = pd.DataFrame()
    if not counts.empty:
        meas = counts[counts["group"] == STATS_GROUP] if "group" in counts else counts
    rows = []
    for r in reports.itertuples(index=False):
        rid = r.report_id
        from_rep = None
        rr = rep[rep["report_id"] == rid] if not rep.empty else rep
        if not reported.empty and (reported["report_id"] == rid).any():
            words = reported.loc[reported["report_id"] == rid, "words"].dropna()
            from_rep = {
                "words": int(words.iloc[0]) if len(words) else None,
                "count": {t.term: int(t.count) for t in rr.itertuples() if not _is_blank(t.count)},
                "note": {t.term: t.note for t in rr.itertuples() if isinstance(t.note, str) and t.note},
            }
        from_meas = None
        mm = meas[meas["report_id"] == rid] if not meas.empty else meas
        if not mm.empty:
            all_ = mm[mm["section"] == "all"]
            refs = mm[mm["section"] == "references"]
            ref_n = dict(zip(refs["term"], refs["count"], strict=False))
            cnt = {t: int(n) for t, n in zip(all_["term"], all_["count"], strict=False)}
            w = getattr(r, "words", None)
            if _is_blank(w) and len(all_):
                w = all_["words"].iloc[0]
            from_meas = {
                "words": None if _is_blank(w) else int(w),
                "count": cnt,
                "note": {t: "all in references" for t, n in cnt.items() if n > 0 and int(ref_n.get(t, 0)) == n},
            }
        first, second = (from_rep, from_meas) if source == "reported" else (from_meas, from_rep)
        fig, used = (first, source) if first else (second, "measured" if source == "reported" else "reported")
        if fig is None:
            fig, used = {"words": None, "count": {}, "note": {}}, "none"
        rows.append({"report_id": rid, "model": r.model, "used": used, **fig})
    return rows


def stats_frame(
    reports: pd.DataFrame,
    reported: pd.DataFrame,
    counts: pd.DataFrame,
    terms: Sequence[str] | None = None,
    source: Source = "reported",
) -> pd.DataFrame:
    """The study's statistics table: words, then each term as `count (density)`.

    Cell form follows the study exactly: a published note replaces the density
    (`3 (all in references)`); a term with zero hits in every report is printed as a bare
    count (`0`, nothing to compare); and a report with a references-only note gets bare
    counts in its other cells too, because densities would mislead for it (Gemma 4 `10`).
    `source` picks reported (default: the study reproduces even after measuring) or measured
    figures; a report lacking the chosen kind falls back to the other, flagged in `figures`.
    """
    terms = list(terms or study_terms())
    rows = _figures(reports, reported, counts, terms, source)
    all_zero = {t: all(r["count"].get(t, 0) == 0 for r in rows if t in r["count"]) for t in terms}
    out = []
    for r in rows:
        words = r["words"]
        row_note = any("references" in n for n in r["note"].values())
        line: dict[str, object] = {"model": r["model"], "words": "" if words is None else f"{words:,}"}
        for t in terms:
            n = r["count"].get(t)
            if n is None:
                line[t] = "n/a" if r["used"] == "none" else ""
            elif t in r["note"]:
                line[t] = f"{n} ({r['note'][t]})"
            elif all_zero[t] or row_note or not words:
                line[t] = str(n)
            else:
                line[t] = f"{n} ({_density(n, words)})"
        line["figures"] = r["used"]
        out.append(line)
    df = pd.DataFrame(out, columns=["model", "words", *terms, "figures"])
    if (df["figures"] == source).all():
        df = df.drop(columns="figures")
    return df


# ---------------------------------------------------------------------------------------- comparison
def comparison_table(store: Store) -> pd.DataFrame:
    """The stored comparison table (ingest/comparison.py builds it on every run)."""
    return store.read_table("comparison")


def cell_text(row: pd.Series | dict, marks: bool = False) -> str:
    """A comparison cell as the study writes it: the curated wording when present, else the value.

    Level dimensions (disclosure) print the level itself, as the study's summary does.
    """
    detail, value = row.get("detail"), row.get("value")
    use_detail = isinstance(detail, str) and detail and row.get("dimension") not in LEVEL_DIMENSIONS
    text = detail if use_detail else ("" if _is_blank(value) else str(value))
    if marks:
        if row.get("origin") == "curated":
            text += " [curated]"
        if row.get("disagree") is True and isinstance(row.get("auto_value"), str):
            text += f" [auto disagrees: {row.get('auto_value')}]"
    return text


def summary_frame(reports: pd.DataFrame, comparison: pd.DataFrame, marks: bool = False) -> pd.DataFrame:
    """The study's summary table: model, organization, then one column per summary dimension."""
    labels = {d.id: d.label for d in load_dimensions()}
    cmp_ = comparison.set_index(["report_id", "dimension"]) if not comparison.empty else None
    out = []
    for r in reports.itertuples(index=False):
        line = {"model": r.model, "organization": r.organization}
        for dim in SUMMARY_DIMENSIONS:
            key = (r.report_id, dim)
            if cmp_ is not None and key in cmp_.index:
                line[labels.get(dim, dim)] = cell_text({**cmp_.loc[key].to_dict(), "dimension": dim}, marks)
            else:
                line[labels.get(dim, dim)] = NOT_ASSESSED
        out.append(line)
    return pd.DataFrame(out, columns=["model", "organization", *(labels.get(d, d) for d in SUMMARY_DIMENSIONS)])


def _level_order(values: Sequence[str]) -> list[str]:
    """Disclosure levels in the lens's category order; unknown ones after, alphabetically."""
    dim = next(d for d in load_dimensions() if d.id == "disclosure")
    # The lens lists levels from none upwards; tiers go downwards.
    cats = tuple(reversed(dim.categories)) if dim.kind == "level" else dim.categories
    known = [c for c in cats if c in values]
    return known + sorted(v for v in values if v not in cats)


def tiers_frame(reports: pd.DataFrame, comparison: pd.DataFrame) -> pd.DataFrame:
    """The disclosure-tier table: reports grouped by document kind × disclosure level."""
    disc = comparison[comparison["dimension"] == "disclosure"] if not comparison.empty else comparison
    by_id = {r.report_id: r for r in disc.itertuples(index=False)} if not disc.empty else {}
    rows = []
    for r in reports.itertuples(index=False):
        c = by_id.get(r.report_id)
        level = NOT_ASSESSED if c is None or _is_blank(c.value) else str(c.value)
        detail = getattr(c, "detail", None) if c is not None else None
        rows.append({"doc_type": r.doc_type, "level": level, "model": r.model, "detail": detail})
    cols = ["document kind", "disclosure", "models", "agentic-RL disclosure"]
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    doc_order = list(typing.get_args(DocType))
    levels = _level_order(df["level"].unique().tolist())
    out = []
    for dt in sorted(df["doc_type"].unique(), key=lambda x: doc_order.index(x) if x in doc_order else 99):
        sub = df[df["doc_type"] == dt]
        for lv in [lv for lv in levels if lv in set(sub["level"])]:
            g = sub[sub["level"] == lv]
            details = g["detail"].dropna()
            out.append(
                {
                    "document kind": DOC_KINDS.get(dt, dt),
                    "disclosure": lv,
                    "models": ", ".join(g["model"]),
                    "agentic-RL disclosure": details.mode().iloc[0] if len(details) else "",
                }
            )
    return pd.DataFrame(out, columns=cols)


# ---------------------------------------------------------------------------------------- store wrappers
def stats_table(store: Store, source: Source = "reported") -> pd.DataFrame:
    """Statistics table of the stored data."""
    return stats_frame(store.read_table("reports"), store.read_table("reported"), store.read_table("counts"), source=source)


def summary_table(store: Store) -> pd.DataFrame:
    """Summary table of the stored data."""
    return summary_frame(store.read_table("reports"), comparison_table(store))


def tiers_table(store: Store) -> pd.DataFrame:
    """Disclosure-tier table of the stored data."""
    return tiers_frame(store.read_table("reports"), comparison_table(store))


# ---------------------------------------------------------------------------------------- report card
def distinctive_terms(counts: pd.DataFrame, report_id: str, k: int = 10) -> pd.DataFrame:
    """Top terms of one report by TF-IDF against the other reports (whole-document counts).

    Why TF-IDF: a raw count ranks "tool" first everywhere; weighting by how few other reports
    use a term surfaces what is particular to this one.
    """
    cols = ["term", "group", "count", "tfidf"]
    if counts.empty or not (counts["report_id"] == report_id).any():
        return pd.DataFrame(columns=cols)
    from sklearn.feature_extraction.text import TfidfTransformer

    allc = counts[counts["section"] == "all"]
    mat = allc.pivot_table(index="report_id", columns=["group", "term"], values="count", aggfunc="sum", fill_value=0)
    weights = TfidfTransformer(sublinear_tf=True).fit_transform(mat.to_numpy()).toarray()
    row = weights[list(mat.index).index(report_id)]
    raw = mat.loc[report_id].to_numpy()
    out = pd.DataFrame(
        {
            "term": [t for _, t in mat.columns],
            "group": [g for g, _ in mat.columns],
            "count": raw.astype(int),
            "tfidf": row.round(3),
        }
    )
    return out[out["count"] > 0].sort_values(["tfidf", "count"], ascending=False).head(k).reset_index(drop=True)[cols]


def report_card(store: Store, report_id: str) -> str:
    """One report as Markdown: metadata, figures, comparison cells with quotes, sections, top terms."""
    from .export import to_markdown

    reports = store.read_table("reports", report_ids=[report_id])
    hit = reports[reports["report_id"] == report_id] if not reports.empty else reports
    if hit.empty:
        raise KeyError(f"unknown report {report_id!r}")
    r = hit.iloc[0]
    lines = [f"# {r['model']}", ""]
    for label, col in (("organization", "organization"), ("country", "country"), ("released", "released"),
                       ("document", "doc_type"), ("arXiv", "arxiv_id"), ("parameters", "params"),
                       ("source", "source_url"), ("notes", "notes")):  # fmt: skip
        v = r.get(col)
        if not _is_blank(v) and str(v):
            lines.append(f"- **{label}**: {v}")
    measured = bool(r.get("measured"))
    lines.append(f"- **measured**: {'yes' if measured else 'no (reported figures only)'}")
    lines += ["", "## Figures", ""]
    # Filtered reads: only this report's rows of the per-report tables are loaded.
    reported = store.read_table("reported", report_ids=[report_id])
    counts_one = store.read_table("counts", report_ids=[report_id])
    for src in ("reported", "measured"):
        st_ = stats_frame(hit, reported, counts_one, source=src)
        if "figures" in st_.columns and (st_["figures"] != src).all():
            continue
        lines += [f"{src.capitalize()}:", "", to_markdown(st_.drop(columns="figures", errors="ignore").drop(columns="model"))]
    cmp_ = comparison_table(store)
    cmp_ = cmp_[cmp_["report_id"] == report_id] if not cmp_.empty else cmp_
    labels = {d.id: d.label for d in load_dimensions()}
    lines += ["## Comparison", ""]
    for c in cmp_.to_dict("records"):
        origin = c.get("origin") or "none"
        lines.append(f"### {labels.get(c['dimension'], c['dimension'])}: {c.get('value')} ({origin})")
        if isinstance(c.get("detail"), str) and c["detail"]:
            lines.append(f"- detail: {c['detail']}")
        if c.get("disagree") is True:
            lines.append(f"- disagreement: automatic reading says {c.get('auto_value')}")
        if isinstance(c.get("quote"), str) and c["quote"]:
            where = c.get("page_label") if not _is_blank(c.get("page_label")) else c.get("page")
            lines.append(f"- quote (p. {where}): \u201c{c['quote']}\u201d")
        if isinstance(c.get("notes"), str) and c["notes"]:
            lines.append(f"- notes: {c['notes']}")
        lines.append("")
    ev = store.read_table("evidence", report_ids=[report_id])
    if not ev.empty:
        ev = ev[ev["report_id"] == report_id]
        if len(ev):
            lines += ["## Evidence", "", to_markdown(ev[["dimension", "category", "page_label", "section", "quote"]])]
    from .results import card_section

    lines += card_section(
        store.read_table("results", report_ids=[report_id]), store.read_table("result_notes", report_ids=[report_id]), report_id
    )
    secs = store.read_table("sections", report_ids=[report_id])
    secs = secs[secs["report_id"] == report_id] if not secs.empty else secs
    if len(secs):
        lines += ["## Sections", "", to_markdown(secs[["section", "heading", "start_page", "end_page", "words"]])]
    top = distinctive_terms(store.read_table("counts", filters=[("section", "==", "all")]), report_id)
    if len(top):
        lines += ["## Distinctive terms (TF-IDF against the other reports)", "", to_markdown(top)]
    return "\n".join(lines).rstrip() + "\n"
