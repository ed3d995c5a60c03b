"""A report's new rows are typed like the part they join (no pandas import), with the same result."""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from ingest.analysis.lens import load_lens
from ingest.analysis.lexicon import load_lexicon
from ingest.outputs import tables as tables_mod
from ingest.outputs.tables import rebuild_tables
from ingest.pipeline import ingest_report
from ingest.sources.registry import load_registry
from ingest.store.frames import rows_to_arrow
from ingest.store.store import Store

from .test_store import add_report, setup  # noqa: F401  (fixture)


def _tables(store: Store) -> dict[str, pa.Table]:
    return {name: store.read_arrow(name) for name in store.table_names()}


def test_incremental_update_equals_a_rebuild_from_scratch(setup, monkeypatch) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    reports, settings = setup
    store = Store(settings.data_dir)
    rebuild_tables(store, load_registry(reports), buckets=1)  # one part per table: the new rows join old ones
    add_report(reports, "gamma")
    spec = load_registry(reports).get("gamma")
    assert spec is not None
    roots = dataclasses.replace(settings, source_roots=(reports,))
    assert ingest_report(spec, reports / "gamma.yaml", store, load_lexicon(), roots, load_lens()).status == "ok"
    typed: list[str] = []

    def spy(rows, schema):  # type: ignore[no-untyped-def]
        out = rows_to_arrow(rows, schema)
        typed.extend([] if out is None else [rows[0].get("report_id", "")])
        return out

    monkeypatch.setattr(tables_mod, "rows_to_arrow", spy)
    rebuild_tables(store, load_registry(reports), buckets=1)
    assert len(typed) >= 5  # counts, kwic, sections, evidence, status, … went through the typed path
    incremental = _tables(Store(settings.data_dir))
    (settings.data_dir / "results" / "manifest.json").unlink()
    rebuild_tables(Store(settings.data_dir), load_registry(reports), buckets=1)
    scratch = _tables(Store(settings.data_dir))
    assert incremental.keys() == scratch.keys()
    for name, tb in scratch.items():
        assert incremental[name].equals(tb), name  # same schema, same values, same order


def test_rows_that_do_not_fit_the_schema_are_left_to_from_pylist() -> None:
    schema = pa.schema([("report_id", pa.string()), ("n", pa.int64()), ("x", pa.float64()), ("note", pa.null())])
    ok = rows_to_arrow([{"report_id": "a", "n": 1, "x": 2}, {"report_id": "b", "n": 2, "x": 0.1}], schema)
    assert ok is not None and ok.schema == schema and ok["x"].to_pylist() == [2.0, 0.1]
    assert ok["note"].null_count == 2  # a column the rows lack is null, as concatenation would give
    assert rows_to_arrow([{"report_id": "a", "n": 1.5}], schema) is None  # a float in an integer column
    assert rows_to_arrow([{"report_id": "a", "note": "text"}], schema) is None  # text in a null column
    assert rows_to_arrow([{"report_id": "a", "other": 1}], schema) is None  # a key outside the schema
    assert rows_to_arrow([{"report_id": "a"}, {"report_id": "b", "n": 1}], schema) is None  # keys differ by row
    assert rows_to_arrow([{"report_id": "a", "x": float("nan")}], schema) is None
    assert rows_to_arrow([], schema) is None
