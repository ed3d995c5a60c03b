"""CPU seconds of the results stage alone (`read_results`) over the corpus PDFs, and a full dump of
what it reads, so a change meant to make the stage cheaper can show it changed no output.

Usage:  python bench/results_stage_cpu.py [--corpus ../shared/corpus] [--first 23] [--repeat 3] [--cold]
        [--dump FILE] [--profile N]

Each PDF is extracted once (not timed); then `read_results` runs over all of them `--repeat` times
(after one warm-up pass) and the best pass's process CPU time is printed. The stage re-opens each
PDF for its table pages here (the pipeline hands it the pages extraction kept open), so the figure
is a little above the stage's share in `bench/ingest_speed.py`, which stays the official one.
`--cold`: the stage as ingest's workers run it instead: each PDF in a process forked after
`ingest.run.warm.warm_caches` and `gc.freeze` (per-document caches empty), with the pages
extraction kept open;
the CPU time of its `read_results` calls, summed, best of `--repeat` (a CPU figure for the stage
of `bench/ingest_speed.py`, whose wall time a loaded machine inflates).
`--profile N`: with `--cold`, one more pass with each child's `read_results` under cProfile; the
profiles are merged and the N functions of most own time (then of most cumulative time) printed.
`--dump FILE`: every table record (cells, attributes, flags, verified verdicts), note and defined
name of every PDF in the corpus (all of them, not `--first`), one per line, for a `diff`.
Each run's output is appended to bench/RESULTS.md like every bench script's (`bench/results_log.py`;
`FRL_BENCH_RESULTS=off` for a debug run or a dump).
"""

from __future__ import annotations

import argparse
import gc
import os
import struct
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest_speed import first_listed  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from ingest.analysis.benchmarks import load_catalogue  # noqa: E402
from ingest.analysis.results import read_results  # noqa: E402
from ingest.reading.extract import extract_file  # noqa: E402


def _dump(out: Path, pdfs: list[Path]) -> None:
    cat = load_catalogue()
    with out.open("w", encoding="utf-8") as f:
        for p in pdfs:
            r = read_results(extract_file(p, engine="pdfium"), p, cat)
            f.write(f"== {p.name}\ndefined={r.defined_names!r}\n")
            f.writelines(f"note {n!r}\n" for n in r.notes)
            for t in r.tables:
                f.write(f"table {t.page} {t.page_label!r} {t.label!r} {t.caption!r} {t.orientation!r} {t.flags!r} {t.region!r}\n")
                f.writelines(f"  cell {c!r}\n" for c in t.cells)
                f.writelines(f"  attr {a!r}\n" for a in t.attributes)


def _cold_cpu(pdfs: list[Path], profile_dir: Path | None = None) -> float:
    """CPU seconds of `read_results` summed over `pdfs`, each in a process forked from this one
    (warmed as ingest's worker server is), with the pages its extraction kept open; with
    `profile_dir`, each child's `read_results` runs under cProfile and writes its stats there."""
    import ingest.pipeline  # noqa: F401  (the worker server preloads it)
    from ingest.analysis.results_pdf import may_hold_table
    from ingest.reading.extract import KeptPages
    from ingest.run.warm import warm_caches

    warm_caches()
    gc.freeze()  # as the worker server does (`ingest.run.preload`): a job's collections skip the inherited heap
    total = 0.0
    for p in pdfs:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: extract, then time the stage alone
            os.close(rfd)
            kept = KeptPages(may_hold_table)
            doc = extract_file(p, engine="pdfium", keep=kept)
            prof = None
            if profile_dir is not None:
                import cProfile

                prof = cProfile.Profile(time.process_time)
                prof.enable()
            t0 = time.process_time()
            read_results(doc, p, kept=kept)
            if prof is not None:
                prof.disable()
                prof.dump_stats(str(profile_dir / f"{p.stem}.prof"))
            os.write(wfd, struct.pack("d", time.process_time() - t0))
            kept.close()
            os._exit(0)
        os.close(wfd)
        with os.fdopen(rfd, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        total += struct.unpack("d", data)[0]
    return total


def _print_profile(pdfs: list[Path], top: int) -> None:
    """One more cold pass with every child under cProfile; the merged stats' top functions."""
    import pstats
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _cold_cpu(pdfs, Path(tmp))
        files = sorted(str(f) for f in Path(tmp).glob("*.prof"))
        stats = pstats.Stats(*files, stream=sys.stdout)
    stats.strip_dirs()
    stats.files = []  # not one line per profile file
    for key in ("tottime", "cumulative"):
        print(f"\nprofile of the stage over {len(files)} PDFs (cold, under cProfile), by {key}:")
        stats.sort_stats(key).print_stats(top)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--first", type=int, default=23, help="the first N PDFs of SOURCES.tsv (23: the set of earlier figures)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="each PDF in a forked worker, pages kept open, as ingest runs it")
    ap.add_argument("--dump", type=Path, help="write every PDF's results to this file instead of timing")
    ap.add_argument("--profile", type=int, metavar="N", help="with --cold: a pass under cProfile; print the top N functions")
    args = ap.parse_args()
    if args.dump:
        _dump(args.dump, sorted((args.corpus / "pdf").glob("*.pdf")))
        print(f"results of every corpus PDF written to {args.dump}")
        return 0
    pdfs = first_listed(args.corpus, args.first)
    if args.cold:
        best = min(_cold_cpu(pdfs) for _ in range(max(args.repeat, 1)))
        where = "each in a fresh worker with its pages kept open"
        print(f"results stage CPU over {len(pdfs)} PDFs, {where}: best of {args.repeat} = {best:.3f} s")
        if args.profile:
            _print_profile(pdfs, args.profile)
        return 0
    docs = [extract_file(p, engine="pdfium") for p in pdfs]
    cat = load_catalogue()
    for p, d in zip(pdfs, docs, strict=True):  # warm-up: imports, caches of the catalogue
        read_results(d, p, cat)
    best = float("inf")
    for _ in range(max(args.repeat, 1)):
        t0 = time.process_time()
        for p, d in zip(pdfs, docs, strict=True):
            read_results(d, p, cat)
        best = min(best, time.process_time() - t0)
    print(f"results stage CPU over {len(pdfs)} PDFs: best of {args.repeat} = {best:.3f} s")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
