"""A long-lived catalogue's per-text caches stay bounded (hostile or huge inputs meet every text)."""

from __future__ import annotations

from ingest.analysis import benchmarks
from ingest.analysis.benchmarks import load_catalogue


def test_catalogue_text_caches_stay_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(benchmarks, "MEMO_ENTRIES", 8)
    cat = load_catalogue()
    for i in range(50):
        cat.is_metric(f"metric text {i}")
        cat.lookup(f"Unknown Bench {i}")
    assert len(cat._matched) <= 8 and len(cat._cache) <= 8
    assert cat.lookup("Unknown Bench 1") is None  # an emptied cache answers as before
    first = cat.benchmarks[0]
    assert cat.lookup(first.name) is not None and cat.lookup(first.name).id == first.id
