"""CSV export of a large table, part by part: the same rows and text as the whole-table export."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from ingest.outputs import export
from ingest.store.frames import _in_order, string_array
from ingest.store.manifest import bucket_of
from ingest.store.store import Store


def _store(tmp_path: Path) -> Store:
    rows = []
    for i in range(12):
        rid = f"r{i:02d}"
        for sec in ("body", "all"):
            for term in ("agent", 'say "hi", twice', "tool\nuse"):
                n, words = (i * 7 + len(term)) % 5, 1000 + i
                rows.append({"report_id": rid, "section": sec, "group": "g" if i % 3 else None, "term": term,
                             "rule": "substring", "count": n, "words": words, "density": round(n / words * 1000, 4)})  # fmt: skip
    store = Store(tmp_path / "data")
    df = pd.DataFrame(rows)[["report_id", "section", "group", "term", "rule", "count", "words", "density"]]
    store.write_tables({"counts": df}, buckets={"counts": 4})
    return store


def _csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


def test_streamed_counts_csv_equals_the_whole_export_bucket_by_bucket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    whole, streamed = tmp_path / "whole.csv", tmp_path / "streamed.csv"
    export.write_table(store, "counts", "csv", whole)
    monkeypatch.setattr(export, "STREAM_ROWS", 0)
    export.write_table(store, "counts", "csv", streamed)
    w, s = _csv_rows(whole), _csv_rows(streamed)
    assert s[0] == w[0] == export.COUNTS_EXPORT_COLUMNS
    # Part by part: reports bucket by bucket, each bucket in registry order; every value as in the whole export.
    assert s[1:] == sorted(w[1:], key=lambda r: bucket_of(r[0], 4))
    assert any(r[6] == "" for r in s[1:]) and any('"hi"' in r[2] for r in s[1:])  # nulls and quoting survive


def test_streamed_export_does_not_import_pandas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow imports pandas when it converts a Python list; the export path must not (0.5 s of start-up)."""
    import subprocess

    store = _store(tmp_path)
    code = (
        "import sys; from pathlib import Path; from ingest.outputs import export; from ingest.store.store import Store; "
        "export.STREAM_ROWS = 0; "
        f"export.write_table(Store({str(store.root)!r}), 'counts', 'csv', Path({str(tmp_path / 'x.csv')!r})); "
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1])
    assert out.stdout.strip() == "False"


def test_report_order_is_the_same_for_dictionary_and_plain_ids() -> None:
    order = ["c", "a", "b"]
    ids = ["a", "b", "a", "c", "b"]
    plain = pa.table({"report_id": ids, "n": list(range(5))})
    dict_tb = plain.set_column(0, "report_id", plain["report_id"].dictionary_encode())
    assert _in_order(plain, order)["n"].to_pylist() == [3, 0, 2, 1, 4]
    assert _in_order(dict_tb, order)["n"].to_pylist() == [3, 0, 2, 1, 4]


def test_string_array_builds_the_same_array_as_pyarrow() -> None:
    values = ["a", "", "héllo", "x" * 300]
    assert string_array(values).equals(pa.array(values, pa.string()))
    assert len(string_array([])) == 0
