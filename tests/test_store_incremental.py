"""The store grows incrementally (issue 12 §3): one report's update rewrites only its own parts.

Also: typed, filtered reads; a per-report table is one declaration; the scale bench runs small.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ingest.outputs import tables as tables_mod
from ingest.outputs.tables import TableDef, section_rows
from ingest.pipeline import run
from ingest.store.manifest import bucket_of
from ingest.store.store import Store

from .conftest import REPO
from .test_store import PAGES, add_report, setup  # noqa: F401  (fixture)


def parts(store: Store) -> dict[tuple[str, int], str]:
    m = store.manifest()
    assert m is not None
    return {(name, b): p.file for name, t in m.tables.items() for b, p in t.parts.items()}


def test_adding_a_report_rewrites_only_its_parts(setup) -> None:  # noqa: F811
    reports, settings = setup
    store = Store(settings.data_dir)
    before = parts(store)
    add_report(reports, "gamma")
    run(reports_dir=reports, settings=settings)
    after = parts(Store(settings.data_dir))
    m = Store(settings.data_dir).manifest()
    changed = {k for k in after if before.get(k) != after[k]}
    for name, b in changed:
        t = m.tables[name]
        assert t.buckets == 1 or b == bucket_of("gamma", t.buckets), (name, b)
    per_report = {name for name, t in m.tables.items() if t.buckets > 1}
    assert {"counts", "kwic", "sections", "evidence"} <= per_report
    unchanged = {k for k in before if k[0] in per_report and k[1] != bucket_of("gamma", m.tables[k[0]].buckets)}
    assert all(after[k] == before[k] for k in unchanged)  # reused by reference, not copied


def test_unchanged_rerun_writes_no_part(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    reports, settings = setup
    store = Store(settings.data_dir)
    from ingest.sources.registry import load_registry

    stats = tables_mod.rebuild_tables(store, load_registry(reports))
    assert stats.changed == [] and stats.bundles_read == 0
    assert stats.parts_written == 0


def test_removed_report_disappears_from_every_table(setup) -> None:  # noqa: F811
    reports, settings = setup
    (reports / "beta.yaml").unlink()
    run(reports_dir=reports, settings=settings)
    store = Store(settings.data_dir)
    for name in store.table_names():
        df = store.read_table(name)
        assert "beta" not in set(df.get("report_id", [])), name


def test_filtered_reads_return_only_the_asked_rows(setup) -> None:  # noqa: F811
    _, settings = setup
    store = Store(settings.data_dir)
    allc = store.read_table("counts")
    one = store.read_table("counts", report_ids=["alpha"], columns=["report_id", "term", "count"],
                           filters=[("section", "==", "all")])  # fmt: skip
    assert list(one.columns) == ["report_id", "term", "count"]
    want = allc[(allc.report_id == "alpha") & (allc.section == "all")]
    assert one["count"].tolist() == want["count"].tolist()
    assert store.read_table("kwic", report_ids=["nobody"]).empty
    cmp_ = store.read_table("comparison")
    assert str(cmp_["page"].dtype) == "Int64" and str(cmp_["disagree"].dtype) == "boolean"
    assert cmp_["report_id"].tolist()[0] == "alpha"  # registry order kept across parts


def test_a_new_per_report_table_is_one_declaration(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    reports, settings = setup
    extra = TableDef("sections_copy", tables_mod.SECTION_COLUMNS, section_rows)
    monkeypatch.setattr(tables_mod, "TABLE_DEFS", (*tables_mod.TABLE_DEFS, extra))
    add_report(reports, "gamma")
    run(reports_dir=reports, settings=settings)
    store = Store(settings.data_dir)
    assert store.read_table("sections_copy").equals(store.read_table("sections"))
    assert store.manifest().tables["sections_copy"].buckets > 1


def test_scale_bench_runs_small(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    import scale

    # --no-cli: the fresh `python -m ingest` processes are what make the bench slow, and the CLI has its own tests
    figures = scale.main(["--reports", "20", "--pages", "4", "--no-cli", "--keep", str(tmp_path / "s")])
    assert figures["parts_written"] <= len(tables_mod.TABLE_DEFS)
    assert figures["dashboard"]["kwic_one"] >= 0 and figures["dashboard"]["counts"] > 0
    assert (tmp_path / "s" / "counts.csv").stat().st_size > 0


def test_kwic_parts_are_clustered_by_term_and_relaid_without_bundles(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import pyarrow.parquet as pq

    from ingest.sources.registry import load_registry

    reports, settings = setup
    store = Store(settings.data_dir)
    m = store.manifest()
    assert m.tables["kwic"].cluster == "term"
    for part in m.tables["kwic"].parts.values():
        terms = pq.ParquetFile(store.tables_dir / part.file).read(columns=["term"])["term"].to_pylist()
        assert terms == sorted(terms)
    before = store.read_table("kwic")
    # A store written before clustering (cluster "") is re-sorted from its parts alone.
    for t in m.tables.values():
        t.cluster = ""
    store.commit(m)
    monkeypatch.setattr(Store, "load_bundle", lambda self, rid: pytest.fail("no bundle should be read"))
    stats = tables_mod.rebuild_tables(store, load_registry(reports))
    assert stats.bundles_read == 0 and stats.parts_written >= len(m.tables["kwic"].parts)
    assert Store(settings.data_dir).manifest().tables["kwic"].cluster == "term"
    after = Store(settings.data_dir).read_table("kwic")
    key = ["report_id", "term", "page", "offset"]
    assert after.sort_values(key).reset_index(drop=True).equals(before.sort_values(key).reset_index(drop=True))


def test_one_named_report_updates_the_tables_with_the_stamps_scanned_during_the_run(setup) -> None:  # noqa: F811
    """`python -m ingest reports/new.yaml` scans the store's change stamps while the report is read,
    then stamps again what the run wrote: the recorded keys are those of a fresh full scan."""
    reports, settings = setup
    add_report(reports, "gamma")
    res = run(files=[reports / "gamma.yaml"], reports_dir=reports, settings=settings)
    assert [o.status for o in res.outcomes] == ["ok"]
    store = Store(settings.data_dir)
    assert set(store.read_table("reports")["report_id"]) == {"alpha", "beta", "nosrc", "gamma"}
    assert "gamma" in set(store.read_table("counts")["report_id"])
    from ingest.sources.registry import load_registry

    again = tables_mod.rebuild_tables(store, load_registry(reports))  # stamps scanned afresh
    assert again.changed == [] and again.parts_written == 0


def _files(root: Path) -> dict[str, int]:
    """Every file under the data folder's results, with its mtime (what a run wrote)."""
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in sorted(root.rglob("*")) if p.is_file()}


def test_unchanged_full_rerun_rewrites_no_status_and_rebuilds_no_table(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A plain `python -m ingest` over unchanged reports writes nothing: rewriting each status file
    (only its time new) changed every report's stamp, and at 10,000 reports the tables were rebuilt
    from every bundle (about 2 minutes)."""
    reports, settings = setup
    store = Store(settings.data_dir)
    before = _files(store.results_dir)
    status_before = {rid: store.load_status(rid) for rid in ("alpha", "beta", "nosrc")}
    monkeypatch.setattr(tables_mod, "rebuild_tables", lambda *a, **k: pytest.fail("no table should be rebuilt"))
    res = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in res.outcomes} == {"alpha": "cached", "beta": "cached", "nosrc": "no-source"}
    assert _files(store.results_dir) == before
    assert {rid: store.load_status(rid) for rid in status_before} == status_before  # the run that computed them


def test_status_is_rewritten_when_the_outcome_changes(setup) -> None:  # noqa: F811
    """A failure is recorded, and so is the recovery after it (the stored bundle is current again)."""
    reports, settings = setup
    good = (reports / "alpha.pdf").read_bytes()
    (reports / "alpha.pdf").write_bytes(b"%PDF-1.4 truncated garbage")
    run(reports_dir=reports, settings=settings)
    store = Store(settings.data_dir)
    assert store.read_table("status").set_index("report_id").loc["alpha", "status"] == "failed"
    failed = _files(store.results_dir / "status")
    run(reports_dir=reports, settings=settings)  # the same failure again: nothing new to record
    assert _files(store.results_dir / "status") == failed
    (reports / "alpha.pdf").write_bytes(good)
    res = run(reports_dir=reports, settings=settings)
    assert {o.report_id: o.status for o in res.outcomes}["alpha"] == "cached"
    status = Store(settings.data_dir).read_table("status").set_index("report_id")
    assert status.loc["alpha", "status"] == "cached" and status.loc["beta", "status"] == "ok"


def test_adding_one_report_does_not_import_pandas(setup) -> None:  # noqa: F811
    """`python -m ingest reports/new.yaml` updates the tables in Arrow: pandas, the costliest import a
    run could pay for (bench/import_costs.py), stays out."""
    import subprocess

    reports, settings = setup
    # A report that joins alpha's parts (as a new report does in a large store, where every part exists).
    rid = next(r for r in (f"gamma{i}" for i in range(10_000)) if bucket_of(r, 64) == bucket_of("alpha", 64))
    add_report(reports, rid)
    args = [str(reports / f"{rid}.yaml"), "--reports-dir", str(reports), "--data-dir", str(settings.data_dir), "--quiet"]
    code = f"import sys; from ingest import cli; rc = cli.main({args!r}); print(rc, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.split() == ["0", "False"], out.stderr
    assert rid in set(Store(settings.data_dir).read_table("kwic")["report_id"])
