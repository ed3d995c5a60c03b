"""Free-text search over the stored text of every measured report, as KWIC lines.

Lexicon terms are counted at ingest; a reader also wants any word or phrase ("reward shaping",
"GRPO", "sandbox"). The text each report was read from is kept in the store's text cache (keyed by
the source's SHA-256 and engine), so a search reads it back instead of the source. The query is
literal text (never a regular expression), matched case-insensitively with whitespace folded, so a
phrase broken across lines is found. Hostile input is bounded: the query's length, the lines per
report and in all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ingest.analysis.keywords import left_context, right_context
from ingest.common.document import Document
from ingest.reading.textnorm import fold_ws
from ingest.store.store import Store

MAX_QUERY = 200
PER_REPORT = 50
MAX_HITS = 500


@dataclass(frozen=True)
class Hit:
    """One match: report, PDF page (or post section number) and its printed label, and the line."""

    report_id: str
    page: int
    label: str
    left: str
    match: str
    right: str


def clean_query(query: str) -> str:
    """The query as searched: whitespace folded, cut to MAX_QUERY characters."""
    return fold_ws(query or "")[:MAX_QUERY]


def search_document(report_id: str, doc: Document, query: str, limit: int = PER_REPORT) -> list[Hit]:
    """The first `limit` matches of `query` in one document, page by page."""
    q = clean_query(query).lower()
    if not q:
        return []
    out: list[Hit] = []
    for page in doc.pages:
        text = fold_ws(page.text)
        low = text.lower()
        if len(low) != len(text):  # a Unicode case mapping changed the length: match on the text itself
            low, q_ = text, clean_query(query)
        else:
            q_ = q
        i = low.find(q_)
        while i >= 0 and len(out) < limit:
            end = i + len(q_)
            out.append(Hit(report_id, page.number, page.label, left_context(text, i), text[i:end], right_context(text, end)))
            i = low.find(q_, end)
        if len(out) >= limit:
            break
    return out


def search_store(store: Store, sources: Iterable[tuple[str, str, str]], query: str) -> tuple[list[Hit], int]:
    """Matches in every report given as (report_id, sha256, engine), at most MAX_HITS, and how many
    reports had a readable stored text."""
    hits: list[Hit] = []
    read = 0
    for rid, sha, engine in sources:
        if len(hits) >= MAX_HITS:
            break
        doc = store.get_text(sha, engine) if sha and engine else None
        if doc is None:
            continue
        read += 1
        hits += search_document(rid, doc, query, min(PER_REPORT, MAX_HITS - len(hits)))
    return hits, read
