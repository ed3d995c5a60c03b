"""A report's most distinctive terms: TF-IDF of its whole-document counts against the other reports."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

COLUMNS = ["term", "group", "count", "tfidf"]


def tfidf(tf: np.ndarray) -> np.ndarray:
    """Rows of sublinear TF-IDF, L2-normalised (scikit-learn's `TfidfTransformer(sublinear_tf=True)`
    formula: tf -> 1 + ln tf, idf = ln((1 + n) / (1 + df)) + 1), in numpy: no 2-second import for a page."""
    n = tf.shape[0]
    with np.errstate(divide="ignore"):
        w = np.where(tf > 0, 1.0 + np.log(np.where(tf > 0, tf, 1.0)), 0.0)
    idf = np.log((1.0 + n) / (1.0 + (tf > 0).sum(axis=0))) + 1.0
    w = w * idf
    norm = np.linalg.norm(w, axis=1, keepdims=True)
    return np.divide(w, norm, out=np.zeros_like(w), where=norm > 0)


@dataclass(frozen=True, slots=True)
class TermWeights:
    """Every report's whole-document counts and TF-IDF weights over the lexicon's terms (one row per
    report): computed once for a store, so a report's distinctive terms are a row lookup."""

    reports: pd.Index
    terms: pd.MultiIndex  # (group, term)
    counts: np.ndarray
    weights: np.ndarray


def term_weights(counts: pd.DataFrame) -> TermWeights | None:
    """TF-IDF of every report's whole-document ("all" section) counts; None when there are none."""
    if counts.empty:
        return None
    allc = counts[counts["section"] == "all"]
    if allc.empty:
        return None
    mat = allc.pivot_table(index="report_id", columns=["group", "term"], values="count", aggfunc="sum", fill_value=0)
    raw = mat.to_numpy(dtype=float)
    return TermWeights(mat.index, mat.columns, raw, tfidf(raw))


def top_terms(weights: TermWeights | None, report_id: str, k: int = 10) -> pd.DataFrame:
    """One report's `k` most distinctive terms (TF-IDF, then count); empty when it has no counts."""
    if weights is None or report_id not in weights.reports:
        return pd.DataFrame(columns=COLUMNS)
    i = weights.reports.get_loc(report_id)
    out = pd.DataFrame(
        {
            "term": [t for _, t in weights.terms],
            "group": [g for g, _ in weights.terms],
            "count": weights.counts[i].astype(int),
            "tfidf": weights.weights[i].round(3),
        }
    )
    return out[out["count"] > 0].sort_values(["tfidf", "count"], ascending=False).head(k).reset_index(drop=True)[COLUMNS]


def distinctive_terms(counts: pd.DataFrame, report_id: str, k: int = 10) -> pd.DataFrame:
    """Top terms of one report by TF-IDF against the other reports (whole-document counts).

    Why TF-IDF: a raw count ranks "tool" first everywhere; weighting by how few other reports
    use a term surfaces what is particular to this one. (A page showing many reports computes
    `term_weights` once and calls `top_terms` per report.)
    """
    if counts.empty or not (counts["report_id"] == report_id).any():
        return pd.DataFrame(columns=COLUMNS)
    return top_terms(term_weights(counts), report_id, k)
