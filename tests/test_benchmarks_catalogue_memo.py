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


def test_patterns_as_one_alternation_pick_as_the_scan_does() -> None:
    """`_any_pattern` takes the first pattern (in catalogue order) that matches in full, as the scan
    of `_patterns` does; a pattern whose meaning its place would change makes the lookup scan."""
    cat = load_catalogue()
    assert cat._any_pattern is not None
    rx, owner = cat._any_pattern
    keys = ["imo2024", "cmo1999", "livecodebenchv62408cot", "lcbv5", "bfcl", "taubenchretail", "τ2bench", "arcagi2", "mmlu", ""]
    for key in keys:
        scan = next((b for p, b in cat._patterns if p.fullmatch(key)), None)
        m = rx.fullmatch(key)
        assert (owner[m.lastindex] if m is not None and m.lastindex is not None else None) is scan
    first = cat.benchmarks[0].model_copy(update={"patterns": [r"(ab)\1"]})
    other = cat.model_copy(update={"benchmarks": [first, *cat.benchmarks[1:]]})
    for name in ("_patterns", "_any_pattern", "_cache"):  # (cached on the copied instance's dict, if made)
        other.__dict__.pop(name, None)
    assert other._any_pattern is None and other.lookup("abab") is not None and other.lookup("abab").id == first.id
