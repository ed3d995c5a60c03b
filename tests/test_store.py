"""The self-checking store: one generation at a time, damage found and repaired, clean errors.

Guards issue 8 section 5: a run killed during the rebuild leaves the previous generation whole;
a truncated or garbage part is detected and rebuilt by a plain run; disk full, a read-only data
folder and a bad `export --out` each give one clear line, exit status 1 and keep earlier data.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pandas as pd
import pytest

from ingest.cli import main
from ingest.outputs import tables as tables_mod
from ingest.pipeline import run
from ingest.pipeline_settings import Settings
from ingest.store.store import Store

from .conftest import write_pdf, write_report

PAGES = [
    ["Agentic reinforcement learning with tool use.", "The reward comes from unit tests in a sandbox."],
    ["We adopt GRPO for training.", "References", "Doe. An agentic benchmark for tools. 2025."],
]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Settings]:
    """Two measured reports and one without a source, ingested once."""
    reports = tmp_path / "reports"
    reports.mkdir()
    for rid in ("alpha", "beta"):
        write_pdf(reports / f"{rid}.pdf", PAGES)
        write_report(reports, rid, f"source:\n  path: {rid}.pdf\n")
    write_report(reports, "nosrc", "reported:\n  from: a study\n  words: 100\n  counts: {agent: 1}\n")
    settings = Settings(data_dir=tmp_path / "data")
    run(reports_dir=reports, settings=settings)
    return reports, settings


def snapshot(store: Store) -> dict[str, pd.DataFrame]:
    return {name: store.read_table(name) for name in store.table_names()}


def same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame], but: tuple[str, ...] = ()) -> bool:
    """Equal tables (`but`: tables a run legitimately changes, e.g. status times)."""
    return a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a if k not in but)


def a_part(store: Store, table: str = "counts") -> Path:
    m = store.manifest()
    assert m is not None
    part = next(iter(m.tables[table].parts.values()))
    return store.tables_dir / part.file


def add_report(reports: Path, rid: str = "gamma") -> None:
    write_pdf(reports / f"{rid}.pdf", PAGES)
    write_report(reports, rid, f"source:\n  path: {rid}.pdf\n")


# ------------------------------------------------------------------------------------ one generation
def test_killed_rebuild_leaves_previous_generation_whole(setup, monkeypatch: pytest.MonkeyPatch) -> None:
    reports, settings = setup
    store = Store(settings.data_dir)
    before = snapshot(store)
    add_report(reports)
    calls = {"n": 0}
    real = Store.write_part

    def dies_after_three(self, *a, **k):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 3:
            raise KeyboardInterrupt  # the process is killed mid-rebuild
        return real(self, *a, **k)

    monkeypatch.setattr(Store, "write_part", dies_after_three)
    with pytest.raises(KeyboardInterrupt):
        run(reports_dir=reports, settings=settings)
    monkeypatch.setattr(Store, "write_part", real)
    after = snapshot(Store(settings.data_dir))
    assert same(before, after)  # no table has gamma while another lacks it
    assert not any((df.get("report_id", pd.Series(dtype=str)) == "gamma").any() for df in after.values())
    assert Store(settings.data_dir).check(full=True) == []
    run(reports_dir=reports, settings=settings)  # the next run completes the change
    done = snapshot(Store(settings.data_dir))
    assert all((done[t]["report_id"] == "gamma").any() for t in ("reports", "counts", "kwic", "sections", "comparison"))


def test_unreferenced_parts_are_collected_one_generation_later(setup) -> None:
    reports, settings = setup
    store = Store(settings.data_dir)
    first = store.manifest().files()
    add_report(reports)
    run(reports_dir=reports, settings=settings)
    second = Store(settings.data_dir).manifest()
    on_disk = {p.relative_to(store.tables_dir).as_posix() for p in store.tables_dir.rglob("*.parquet")}
    assert second.files() | set(second.retired) == on_disk  # the previous generation's parts are kept once
    add_report(reports, "delta")
    run(reports_dir=reports, settings=settings)
    on_disk = {p.relative_to(store.tables_dir).as_posix() for p in store.tables_dir.rglob("*.parquet")}
    assert not (first - second.files() - Store(settings.data_dir).manifest().files()) & on_disk


# ------------------------------------------------------------------------------------ damage
@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete"])
def test_damaged_part_is_detected_reported_and_rebuilt_by_plain_run(setup, damage: str, capsys) -> None:
    reports, settings = setup
    store = Store(settings.data_dir)
    before = snapshot(store)
    part = a_part(store)
    raw = part.read_bytes()
    if damage == "truncate":
        part.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        part.write_bytes(os.urandom(len(raw)))
    else:
        part.unlink()
    assert store.check() == [f"counts/{next(iter(store.manifest().tables['counts'].parts))}"]
    capsys.readouterr()
    assert main(["export", "--table", "counts", "--data-dir", str(settings.data_dir)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: stored tables are damaged (counts); run python -m ingest to rebuild them"]
    assert main(["--reports-dir", str(reports), "--data-dir", str(settings.data_dir), "--quiet"]) == 0
    assert Store(settings.data_dir).check(full=True) == []
    assert same(before, snapshot(Store(settings.data_dir)), but=("status",))
    assert main(["export", "--table", "counts", "--data-dir", str(settings.data_dir)]) == 0


def test_damaged_manifest_is_rebuilt_by_plain_run(setup, capsys) -> None:
    reports, settings = setup
    store = Store(settings.data_dir)
    before = snapshot(store)
    store.manifest_path.write_bytes(store.manifest_path.read_bytes()[:100])
    assert store.check() == ["manifest"]
    assert main(["export", "--table", "reports", "--data-dir", str(settings.data_dir)]) == 1
    assert "damaged" in capsys.readouterr().err
    assert main(["--reports-dir", str(reports), "--data-dir", str(settings.data_dir), "--quiet"]) == 0
    assert same(before, snapshot(Store(settings.data_dir)), but=("status",))


def test_overwritten_part_with_same_size_and_mtime_is_found_by_full_check(setup) -> None:
    _, settings = setup
    store = Store(settings.data_dir)
    part = a_part(store, "kwic")
    st_ = part.stat()
    raw = bytearray(part.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    part.write_bytes(bytes(raw))
    os.utime(part, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    assert store.check() == []  # the cheap check trusts size + mtime, like git's index
    assert store.check(full=True) != []


# ------------------------------------------------------------------------------------ disk full, read-only
def _enospc(*a, **k):  # type: ignore[no-untyped-def]
    raise OSError(errno.ENOSPC, "No space left on device")


def test_disk_full_during_rebuild_is_one_line_and_keeps_tables(setup, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    reports, settings = setup
    store = Store(settings.data_dir)
    before = snapshot(store)
    add_report(reports)
    monkeypatch.setattr(os, "replace", _enospc)
    capsys.readouterr()
    code = main(["--reports-dir", str(reports), "--data-dir", str(settings.data_dir), "--quiet"])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "error: cannot write: no space left on the device; earlier results are kept"
    assert same(before, snapshot(Store(settings.data_dir)))
    assert Store(settings.data_dir).check(full=True) == []
    assert not list(settings.data_dir.rglob("*.tmp"))  # no temp files left behind


def test_read_only_data_folder_is_one_line(setup, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    reports, settings = setup
    before = snapshot(Store(settings.data_dir))
    real_open = os.open
    data = str(settings.data_dir)

    def read_only(path, flags, *a, **k):  # type: ignore[no-untyped-def]
        if str(path).startswith(data) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", read_only)
    capsys.readouterr()
    code = main(["--reports-dir", str(reports), "--data-dir", data, "--quiet", "--force"])
    monkeypatch.undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err == [f"error: cannot write to the data folder {data}: permission denied (read-only?)"]
    assert same(before, snapshot(Store(settings.data_dir)))


# ------------------------------------------------------------------------------------ export --out
def test_export_out_to_a_folder_is_one_line(setup, capsys) -> None:
    _, settings = setup
    target = settings.data_dir.parent / "a-folder"
    target.mkdir()
    capsys.readouterr()
    assert main(["export", "--table", "counts", "--data-dir", str(settings.data_dir), "--out", str(target)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot write") and "folder" in err[0]
    assert target.is_dir() and not list(target.iterdir())


@pytest.mark.parametrize("table", ["counts", "summary"])
@pytest.mark.parametrize("failure", ["disk-full", "read-only"])
def test_export_out_read_only_or_full_keeps_earlier_file(setup, monkeypatch: pytest.MonkeyPatch, capsys, table, failure) -> None:
    _, settings = setup
    dest = settings.data_dir.parent / "out.csv"
    dest.write_text("earlier export\n")
    if failure == "disk-full":
        monkeypatch.setattr(os, "replace", _enospc)
        said = "no space left on the device"
    else:
        real_open, folder = os.open, str(dest.parent)

        def read_only(path, flags, *a, **k):  # type: ignore[no-untyped-def]
            if str(path).startswith(folder + "/.out.csv") and flags & os.O_CREAT:
                raise OSError(errno.EACCES, "Permission denied", str(path))
            return real_open(path, flags, *a, **k)

        monkeypatch.setattr(os, "open", read_only)
        said = "permission denied (read-only?)"
    capsys.readouterr()
    code = main(["export", "--table", table, "--data-dir", str(settings.data_dir), "--out", str(dest)])
    monkeypatch.undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err == [f"error: cannot write {dest}: {said}"]
    assert dest.read_text() == "earlier export\n"
    assert [p.name for p in dest.parent.iterdir() if p.name.startswith(".out.csv")] == []


def test_export_out_to_missing_folder_is_one_line(setup, capsys) -> None:
    _, settings = setup
    dest = settings.data_dir.parent / "no" / "such" / "out.csv"
    capsys.readouterr()
    assert main(["export", "--table", "reports", "--data-dir", str(settings.data_dir), "--out", str(dest)]) == 1
    assert capsys.readouterr().err.strip() == f"error: cannot write {dest}: no such folder"


def test_export_counts_csv_matches_the_stored_table(setup, tmp_path: Path) -> None:
    _, settings = setup
    dest = tmp_path / "counts.csv"
    assert main(["export", "--table", "counts", "--data-dir", str(settings.data_dir), "--out", str(dest)]) == 0
    got = pd.read_csv(dest)
    want = Store(settings.data_dir).read_table("counts")
    assert list(got.columns) == ["report_id", "section", "term", "count", "words", "density", "group", "rule"]
    assert got["report_id"].tolist() == want["report_id"].tolist()
    assert got["count"].tolist() == want["count"].tolist()


def test_table_defs_cover_the_stored_tables(setup) -> None:
    _, settings = setup
    assert set(Store(settings.data_dir).table_names()) == {td.name for td in tables_mod.TABLE_DEFS}
