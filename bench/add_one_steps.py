"""CPU of the driver's steps when one report is added to a large store (issue 35 item 10).

Usage:  python bench/add_one_steps.py --keep /tmp/s10k [--repeat 5]

`bench/scale.py --keep DIR` builds the store (10,000 reports by default); this script times, on
that store, the steps `python -m ingest NEW.yaml` takes besides its imports and the job: each in
this process, best of --repeat (on a shared machine one run mostly measures the others' load).
The lens lines compare a load that compiles every pattern to check it with one whose text the
data cache remembers as checked (`load_lens(cache=...)`), and the worker warm-up's load
(`lens_to_compile`); cProfile inflates regex compilation several times over, so these are the
figures to compare. The last lines rewrite the parts a new report's table update rewrites (its
bucket of each per-report table, each summary table's part; no rows change, so the same bytes are
written and reused) one at a time and two at a time (`tables.PART_THREADS`): best wall and CPU.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from ingest.analysis import lens as lens_mod  # noqa: E402
from ingest.analysis.lens import DEFAULT_LENS, LENS_DIR, known_dimensions, lens_to_compile, load_lens  # noqa: E402
from ingest.analysis.lexicon import load_lexicon  # noqa: E402
from ingest.outputs.tables import TABLE_DEFS, _rebuild_part  # noqa: E402
from ingest.pipeline import tables_key, yaml_stat  # noqa: E402
from ingest.sources.registry import _report_paths, load_roster  # noqa: E402
from ingest.sources.spec_cache import SpecCache  # noqa: E402
from ingest.store.manifest import bucket_of  # noqa: E402
from ingest.store.store import Store  # noqa: E402


def best(fn: Callable[[], object], repeat: int, before: Callable[[], None] | None = None) -> float:
    """Least CPU seconds of `fn` over `repeat` calls (`before` runs untimed ahead of each)."""
    out = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        c0 = time.process_time()
        fn()
        out = min(out, time.process_time() - c0)
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--keep", type=Path, required=True, help="the folder bench/scale.py --keep built (reports/, data/)")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    reports, data = args.keep / "reports", args.keep / "data"
    cache = data / "cache"
    n = args.repeat

    def forget() -> None:  # a fresh process: no lens loaded, nothing in `re`'s cache
        lens_mod._LENSES.clear()
        re.purge()

    def lens_checked() -> None:
        load_lens(DEFAULT_LENS)
        known_dimensions(LENS_DIR)

    def lens_marked() -> None:
        load_lens(DEFAULT_LENS, cache)
        known_dimensions(LENS_DIR, cache)

    lens_marked()  # (writes the markers, as the first run on a store does)
    rows = [
        ("lens + known dimensions, regex check (before)", best(lens_checked, n, forget)),
        ("lens + known dimensions, checked text remembered", best(lens_marked, n, forget)),
        ("worker warm-up lens: load_lens (before)", best(lambda: load_lens(DEFAULT_LENS), n, forget)),
        ("worker warm-up lens: lens_to_compile", best(lambda: lens_to_compile(DEFAULT_LENS), n, forget)),
    ]
    dims = known_dimensions(LENS_DIR, cache)
    spec_cache = cache / "registry.json"
    paths = _report_paths(reports)
    opened = SpecCache.open(spec_cache)
    stats: dict = {}
    yaml_stat(reports, keep=stats)
    roster = load_roster(reports, known_dimensions=dims, cache=spec_cache)
    lexicon = load_lexicon()
    store = Store(data)
    rows += [
        ("stat of every report file (yaml_stat), one pass", best(lambda: yaml_stat(reports), n)),
        ("registry cache: open and parse", best(lambda: SpecCache.open(spec_cache), n)),
        ("registry cache: lookup (a stat per file; before)", best(lambda: opened.lookup(paths), n)),
        ("registry cache: lookup with the run's yaml_stat", best(lambda: opened.lookup(paths, stats), n)),
        ("folder roster (load_roster, all of the above)", best(lambda: load_roster(reports, None, dims, spec_cache), n)),
        ("tables key", best(lambda: tables_key(roster, lexicon, "x"), n)),
        ("bundle and status stamps", best(store.bundle_stamps, n)),
    ]
    print(f"store: {len(paths):,} report files; CPU seconds, best of {n}")
    for name, secs in rows:
        print(f"{name:<52} {secs:6.3f} s")
    rid = roster.ids[0]
    for threads in (1, 2):
        wall, cpu, parts = parts_rewrite(store, rid, threads, n)
        print(f"{f'{parts} table parts of one report rewritten, {threads} at once':<52} {cpu:6.3f} s   (wall {wall:.3f} s)")


def parts_rewrite(store: Store, rid: str, threads: int, repeat: int) -> tuple[float, float, int]:
    """Best wall and CPU seconds of rewriting the parts holding report `rid`, `threads` at a time."""
    m = store.manifest()
    assert m is not None, "no tables in this store"
    work = []
    for td in TABLE_DEFS:
        entry = m.tables.get(td.name)
        b = bucket_of(rid, entry.buckets) if entry is not None else 0
        if entry is not None and b in entry.parts:
            work.append((td, b, entry))
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda w: _rebuild_part(store, w[0], w[1], w[2], False, {rid}, [rid], {}, set()), work))
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return wall, cpu, len(work)


if __name__ == "__main__":
    with recorded(__file__):
        main()
