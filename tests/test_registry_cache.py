"""The registry's spec cache: an unchanged YAML is never parsed twice, and the cache never changes a result."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ingest.sources import registry
from ingest.sources.registry import SpecCache, load_registry

from .conftest import copy_shipped, write_report

#: A file older than this is outside the "racy" window, so its outcome is cached.
OLD_NS = time.time_ns() - 3600 * 10**9


def _age(*paths: Path, ns: int = OLD_NS) -> None:
    """Give files an mtime an hour back (as if written long before the run)."""
    for p in paths:
        os.utime(p, ns=(ns, ns))


@pytest.fixture(autouse=True)
def cache_small_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache serves loads of more than CACHE_MIN_FILES files; these tests use a handful."""
    monkeypatch.setattr(registry, "CACHE_MIN_FILES", 0)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the files actually parsed (cache misses)."""
    seen: list[str] = []
    real = registry._read_report

    def counting(p: Path):  # type: ignore[no-untyped-def]
        seen.append(p.name)
        return real(p)

    monkeypatch.setattr(registry, "_read_report", counting)
    return seen


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    reports = tmp_path / "reports"
    paths = [write_report(reports, f"r{i}", "tags: [a, b]\n", released="2025-01-0" + str(i + 1)) for i in range(3)]
    paths.append(write_report(reports, "bad", "sorce:\n  path: x.pdf\n"))
    _age(*paths)
    return reports


def test_warm_load_parses_nothing_and_equals_an_uncached_load(folder: Path, tmp_path: Path, parses: list[str]) -> None:
    cache = tmp_path / "data" / "cache" / "registry.json"
    cold = load_registry(folder, cache=cache)
    assert sorted(parses) == ["bad.yaml", "r0.yaml", "r1.yaml", "r2.yaml"] and cache.exists()
    parses.clear()
    warm = load_registry(folder, cache=cache)
    assert parses == []
    plain = load_registry(folder)
    assert warm == cold == plain
    assert [r.id for r in warm.reports] == ["r0", "r1", "r2"]


def test_shipped_reports_round_trip_through_the_cache(tmp_path: Path, parses: list[str]) -> None:
    cache = tmp_path / "registry.json"
    shipped = copy_shipped(tmp_path / "reports")
    plain = load_registry(shipped)
    load_registry(shipped, cache=cache)
    parses.clear()
    warm = load_registry(shipped, cache=cache)
    if any(time.time_ns() - p.stat().st_mtime_ns > 3 * 10**9 for p in plain.paths.values()):
        assert len(parses) < len(plain.reports)
    assert warm == plain  # curated cells, reported figures, dates and results survive the JSON round trip


def test_changed_yaml_is_read_again(folder: Path, tmp_path: Path, parses: list[str]) -> None:
    cache = tmp_path / "registry.json"
    load_registry(folder, cache=cache)
    p = folder / "r1.yaml"
    text = p.read_text()
    p.write_text(text.replace("model: R1", "model: R9"))  # same size
    _age(p, ns=OLD_NS + 10**9)
    parses.clear()
    reg = load_registry(folder, cache=cache)
    assert parses == ["r1.yaml"] and reg.get("r1").model == "R9"


def test_same_size_rewrite_with_the_old_mtime_is_still_seen(folder: Path, tmp_path: Path) -> None:
    """A content change that keeps size and mtime (a tool restoring mtimes) changes the ctime."""
    cache = tmp_path / "registry.json"
    load_registry(folder, cache=cache)
    p = folder / "r2.yaml"
    before = p.stat()
    time.sleep(0.02)
    p.write_text(p.read_text().replace("model: R2", "model: R7"))
    os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert load_registry(folder, cache=cache).get("r2").model == "R7"


def test_a_freshly_written_file_is_not_cached(folder: Path, tmp_path: Path, parses: list[str]) -> None:
    """Within the same mtime tick a rewrite could keep size and stamps: such an entry is re-read next time."""
    cache = tmp_path / "registry.json"
    write_report(folder, "fresh")
    load_registry(folder, cache=cache)
    parses.clear()
    load_registry(folder, cache=cache)
    assert parses == ["fresh.yaml"]


def test_deleted_yaml_drops_from_registry_and_cache(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "registry.json"
    load_registry(folder, cache=cache)
    (folder / "r0.yaml").unlink()
    reg = load_registry(folder, cache=cache)
    assert reg.get("r0") is None and [r.id for r in reg.reports] == ["r1", "r2"]
    assert not any(k.endswith("r0.yaml") for k in SpecCache.open(cache).entries)


def test_loading_some_files_keeps_the_others_cached(folder: Path, tmp_path: Path, parses: list[str]) -> None:
    cache = tmp_path / "registry.json"
    load_registry(folder, cache=cache)
    load_registry(folder, files=[folder / "r1.yaml"], cache=cache)
    parses.clear()
    load_registry(folder, cache=cache)
    assert parses == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"",
        lambda raw: b"garbage\n{",
        lambda raw: raw[: len(raw) // 2],  # truncated
        lambda raw: raw.replace(b'"R1"', b'"RX"'),  # body altered: checksum mismatch
        lambda raw: raw.replace(b"frl-registry-cache %d " % registry.CACHE_FORMAT, b"frl-registry-cache 1 "),  # older format
    ],
    ids=["empty", "garbage", "truncated", "altered", "old-format"],
)
def test_corrupt_or_old_cache_is_ignored_and_rebuilt(folder: Path, tmp_path: Path, damage, parses: list[str]) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / "registry.json"
    plain = load_registry(folder, cache=cache)
    cache.write_bytes(damage(cache.read_bytes()))
    parses.clear()
    assert load_registry(folder, cache=cache) == plain
    assert len(parses) == 4  # nothing was taken from the damaged cache
    parses.clear()
    load_registry(folder, cache=cache)
    assert parses == []  # and it was rebuilt


def test_a_cache_with_a_valid_checksum_but_an_invalid_spec_is_ignored(folder: Path, tmp_path: Path) -> None:
    """The specs in the cache are validated by the schema again, not taken on trust."""
    import hashlib

    cache = tmp_path / "registry.json"
    plain = load_registry(folder, cache=cache)
    head, _, body = cache.read_bytes().partition(b"\n")
    body = body.replace(b'"id":"r1"', b'"id":"../../etc"')
    magic, fmt, key, _ = head.decode().split(" ")
    cache.write_bytes(f"{magic} {fmt} {key} {hashlib.sha256(body).hexdigest()}\n".encode() + body)
    assert load_registry(folder, cache=cache) == plain


def test_a_yaml_with_errors_reports_the_same_error_on_a_warm_run(folder: Path, tmp_path: Path, parses: list[str]) -> None:
    cache = tmp_path / "registry.json"
    cold = load_registry(folder, cache=cache)
    parses.clear()
    warm = load_registry(folder, cache=cache)
    assert parses == [] and warm.errors == cold.errors == load_registry(folder).errors
    assert len(warm.errors) == 1 and warm.errors[0].field == "sorce" and str(folder / "bad.yaml") in str(warm.errors[0])


def test_curated_dimensions_are_checked_on_a_warm_run(folder: Path, tmp_path: Path) -> None:
    """The lens may change between runs: the `curated:` keys are checked on every load, not cached."""
    p = write_report(folder, "cur", "curated:\n  reward_source:\n    value: not disclosed\n")
    _age(p)
    cache = tmp_path / "registry.json"
    assert load_registry(folder, cache=cache, known_dimensions={"reward_source"}).get("cur") is not None
    reg = load_registry(folder, cache=cache, known_dimensions={"rl_algorithm"})
    assert reg.get("cur") is None and any(e.field == "curated.reward_source" for e in reg.errors)


def test_duplicate_ids_are_still_refused_warm(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    a = write_report(reports, "dup")
    _age(a)
    cache = tmp_path / "registry.json"
    cold = load_registry(files=[a, a], cache=cache)
    warm = load_registry(files=[a, a], cache=cache)
    assert warm == cold and "duplicate id" in str(warm.errors[0])


def test_a_run_uses_the_cache_in_the_data_folder(folder: Path, tmp_path: Path) -> None:
    from ingest.pipeline import run
    from ingest.pipeline_settings import Settings

    data = tmp_path / "data"
    run(reports_dir=folder, settings=Settings(data_dir=data, jobs=1))
    assert SpecCache.open(data / "cache" / "registry.json").entries


def test_a_load_of_a_few_files_parses_them_without_the_cache(folder: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`python -m ingest reports/new.yaml` must not pay for reading a cache of 10,000 entries."""
    monkeypatch.setattr(registry, "CACHE_MIN_FILES", 64)
    cache = tmp_path / "registry.json"
    reg = load_registry(folder, files=[folder / "r1.yaml"], cache=cache)
    assert [r.id for r in reg.reports] == ["r1"] and not cache.exists()


# ------------------------------------------------------------------------------------ roster
def test_roster_makes_only_the_specs_asked_for_and_hashes_like_the_registry(folder: Path, tmp_path: Path) -> None:
    """A warm roster (the table update's view of the folder) validates no spec until one is used;
    the tables key it gives is the registry's, cold or warm."""
    from ingest.analysis.lexicon import load_lexicon
    from ingest.pipeline import tables_key

    cache = tmp_path / "registry.json"
    plain = load_registry(folder)
    load_registry(folder, cache=cache)
    roster = registry.load_roster(folder, cache=cache)
    assert roster.ids == ["r0", "r1", "r2"] and roster._specs == {}
    assert roster.errors == plain.errors
    lex = load_lexicon()
    assert tables_key(roster, lex) == tables_key(plain, lex) == tables_key(load_registry(folder, cache=cache), lex)
    assert roster.spec("r1") == plain.get("r1") and set(roster._specs) == {"r1"}
    assert roster.paths["r1"] == str(plain.paths["r1"])


def test_roster_checks_every_file_without_making_its_spec(folder: Path, tmp_path: Path) -> None:
    """What decides which reports are in is checked for all: errors, `curated:` keys, duplicate ids."""
    p = write_report(folder, "cur", "curated:\n  reward_source:\n    value: not disclosed\n")
    _age(p)
    cache = tmp_path / "registry.json"
    load_registry(folder, cache=cache)
    roster = registry.load_roster(folder, cache=cache, known_dimensions={"rl_algorithm"})
    assert "cur" not in roster.paths and any(e.field == "curated.reward_source" for e in roster.errors)
    assert any(e.field == "sorce" for e in roster.errors)
    a = folder / "r0.yaml"
    twice = registry.load_roster(files=[a, a], cache=cache)
    assert twice.ids == ["r0"] and "duplicate id" in str(twice.errors[0])


def test_roster_does_not_take_an_altered_spec_on_trust(folder: Path, tmp_path: Path) -> None:
    """A cache with a valid checksum whose spec was altered: the roster reads the file when it makes
    the spec; a line whose id is not its file's name is dropped (its file is read again)."""
    import hashlib

    cache = tmp_path / "registry.json"
    plain = load_registry(folder, cache=cache)
    head, _, body = cache.read_bytes().partition(b"\n")
    body = body.replace(b'"id":"r1"', b'"id":"../../etc"').replace(b"\tr2\t", b"\t..\t")
    magic, fmt, key, _ = head.decode().split(" ")
    cache.write_bytes(f"{magic} {fmt} {key} {hashlib.sha256(body).hexdigest()}\n".encode() + body)
    roster = registry.load_roster(folder, cache=cache)
    assert roster.ids == ["r0", "r1", "r2"]
    assert roster.spec("r1") == plain.get("r1") and roster.spec("r2") == plain.get("r2")


def test_the_run_s_own_stats_serve_the_lookup_and_a_change_still_shows(folder: Path, tmp_path: Path, parses: list[str]) -> None:
    """`load_roster(stats=...)`: the stats `pipeline.yaml_stat` took stand in for the lookup's own
    (no stat of a file they cover) and give the same roster; a file changed since still reads again."""
    from ingest.pipeline import yaml_stat
    from ingest.sources.registry import load_roster

    cache = tmp_path / "registry.json"
    load_registry(folder, cache=cache)
    stats: dict[str, os.stat_result] = {}
    yaml_stat(folder, keep=stats)
    assert len(stats) == 4
    stat_calls: list[str] = []
    real = os.stat

    def counting(p, *a, **k):  # type: ignore[no-untyped-def]
        stat_calls.append(str(p))
        return real(p, *a, **k)

    parses.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("ingest.sources.spec_cache.os.stat", counting)
        reused = load_roster(folder, cache=cache, stats=stats)
    assert parses == [] and not any(c.endswith(".yaml") for c in stat_calls)
    plain = load_roster(folder, cache=cache)
    assert (reused.ids, reused.paths, reused._json, reused.errors) == (plain.ids, plain.paths, plain._json, plain.errors)
    p = folder / "r1.yaml"
    p.write_text(p.read_text().replace("model: R1", "model: R9"))
    _age(p, ns=OLD_NS + 10**9)
    stats.clear()
    yaml_stat(folder, keep=stats)
    parses.clear()
    assert load_roster(folder, cache=cache, stats=stats).spec("r1").model == "R9" and parses == ["r1.yaml"]


_ODD_LINES = [
    '"/r/a.yaml"\t1 2 3 4\ta\t[[],[]]\t{}',  # the usual line
    '"/r/a.yaml"\t1 2 3\ta\t[[],[]]\t{}',  # a stamp of 3 numbers
    '"/r/b.yaml"\t1 2 3 x\tb\t[[],[]]\t{}',  # a stamp that is not numbers
    '"/r/n.yaml"\t1 2 3 4 5\tn\t[[],[]]\t{}',
    '"/r/j.yaml"\t1_0 2 3 4\tj\t[[],[]]\t{}',
    '"/r/c.yml"\t1 2 3 4\tc\t[[],[]]\t{}',  # another suffix
    '"/r/D.yaml"\t1 2 3 4\tD\t[[],[]]\t{}',  # not an id
    '"/r/e.yaml"\t1 2 3 4\te\t[["k"],[]]\t{}',  # curated keys
    '"/r/f.yaml"\t1 2 3 4\t\t[[],[["a","b","c"]]]\t',  # errors
    '"/r/g\\u0041.yaml"\t1 2 3 4\tgA\t[[],[]]\t{}',  # an escaped path
    '"/r/h.yaml"\t1 2 3 4\th\t[[],[]]\t',  # neither spec nor errors
    '/r/k.yaml\t1 2 3 4\tk\t[[],[]]\t{}',  # an unquoted path
    '"/r/l.yaml\t1 2 3 4\tl\t[[],[]]\t{}',
    '"/r/y/m.yaml"\t1 2 3 4\ty/m\t[[],[]]\t{}',
    '"/r/o.yaml"\t1 2 3 4\tp\t[[],[]]\t{}',  # another report's id
    '"m.yaml"\t1 2 3 4\tm\t[[],[]]\t{}',
    "",
    "a line",
]


def test_the_quick_parse_of_the_cache_reads_every_line_as_parse_line_does() -> None:
    from ingest.sources import spec_cache

    text = "\n".join(_ODD_LINES)
    slow = dict(got for line in _ODD_LINES if (got := spec_cache._parse_line(line)) is not None)
    quick = spec_cache._parse_lines(text)
    assert quick == slow and "/r/a.yaml" in quick and "/r/b.yaml" not in quick
    assert all(type(e) is spec_cache._Entry for e in quick.values())


def test_absolute_paths_made_by_folder_equal_os_path_abspath() -> None:
    import itertools

    from ingest.sources.spec_cache import _abspath

    folders: dict[str, str] = {}
    parts = ["", "/", "//", "a", ".", "..", "b.yaml"]
    for n in range(1, 5):
        for combo in itertools.product(parts, repeat=n):
            path = "/".join(combo)
            assert _abspath(path, folders) == os.path.abspath(path), path


def test_yaml_stat_names_files_as_normpath_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ingest.pipeline import yaml_stat

    (tmp_path / "sub").mkdir()
    for name in ("a.yaml", "b.yml", "c.txt"):
        (tmp_path / "sub" / name).write_text("x")
    monkeypatch.chdir(tmp_path)
    for folder in ("sub", "sub/", "./sub", "sub/.", "sub/../sub", f"{tmp_path}//sub/", Path("sub")):
        want = {os.path.normpath(e.path) for e in os.scandir(folder) if e.name.endswith((".yaml", ".yml"))}
        assert set(yaml_stat(folder)) == want, folder
    monkeypatch.chdir(tmp_path / "sub")
    assert set(yaml_stat(".")) == {"a.yaml", "b.yml"}
