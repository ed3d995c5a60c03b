"""A report's most distinctive terms: TF-IDF of its whole-document counts against the other reports."""

from __future__ import annotations

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


def distinctive_terms(counts: pd.DataFrame, report_id: str, k: int = 10) -> pd.DataFrame:
    """Top terms of one report by TF-IDF against the other reports (whole-document counts).

    Why TF-IDF: a raw count ranks "tool" first everywhere; weighting by how few other reports
    use a term surfaces what is particular to this one.
    """
    if counts.empty or not (counts["report_id"] == report_id).any():
        return pd.DataFrame(columns=COLUMNS)
    allc = counts[counts["section"] == "all"]
    mat = allc.pivot_table(index="report_id", columns=["group", "term"], values="count", aggfunc="sum", fill_value=0)
    weights = tfidf(mat.to_numpy(dtype=float))
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
    return out[out["count"] > 0].sort_values(["tfidf", "count"], ascending=False).head(k).reset_index(drop=True)[COLUMNS]
