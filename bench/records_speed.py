"""Bundle (de)serialisation speed: the typed records' `from_json` / `to_json` on real stored bundles.

Usage:  python bench/records_speed.py [--corpus ../shared/corpus] [--data DIR] [--repeat 10]

Reads every stored bundle of a data folder (`--data`; without it the corpus is ingested into a
temporary folder first), then times (CPU seconds of this process), best of --repeat: JSON parse alone, parse + `Bundle.from_json`
(what the store's `load_bundle` does after gunzip), and `Bundle.to_json` + `json.dumps` (what
`save_bundle` does before gzip). The records' share is the difference to the JSON parse. Warm
re-ingest and the table rebuild read every bundle, so this is the records' part of both.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest_speed import write_reports  # noqa: E402
from bench.results_log import recorded  # noqa: E402
from ingest.common.records import Bundle  # noqa: E402
from ingest.pipeline import run  # noqa: E402
from ingest.pipeline_settings import Settings  # noqa: E402
from ingest.store.store import Store  # noqa: E402


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The shortest of `repeat` CPU times of `fn()` (CPU, not wall: on a shared machine wall time
    mostly measures the other processes)."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def stored_bundles(data: Path) -> list[bytes]:
    """The raw (un-gzipped) JSON of every bundle stored under `data`."""
    store = Store(data)
    return [gzip.decompress((store.bundle_dir / f"{rid}.json.gz").read_bytes()) for rid in store.bundle_ids()]


def ingest_corpus(corpus: Path, tmp: Path) -> Path:
    pdfs = sorted((corpus / "pdf").glob("*.pdf"))
    write_reports(tmp / "reports", pdfs)
    data = tmp / "data"
    run(reports_dir=tmp / "reports", settings=Settings(data_dir=data, offline=True, jobs=1, source_roots=(corpus,)))
    return data


def measure(raws: list[bytes], repeat: int) -> dict[str, float]:
    bundles = [Bundle.from_json(json.loads(r)) for r in raws]
    assert all(Bundle.from_json(b.to_json()) == b for b in bundles), "round trip changed a bundle"
    parse = best_of(repeat, lambda: [json.loads(r) for r in raws])
    load = best_of(repeat, lambda: [Bundle.from_json(json.loads(r)) for r in raws])
    dump_only = best_of(repeat, lambda: [json.dumps(b.to_json()) for b in bundles])
    return {"parse": parse, "load": load, "dump": dump_only}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--data", type=Path, help="a data folder with stored bundles (default: ingest --corpus)")
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or ingest_corpus(args.corpus, Path(tmp))
        raws = stored_bundles(data)
    if not raws:
        print(f"no bundles under {data}")
        return 2
    t = measure(raws, args.repeat)
    mb = sum(len(r) for r in raws) / 1e6
    print(f"bundles: {len(raws)} ({mb:.1f} MB of JSON), CPU seconds, best of {args.repeat}")
    print(f"json.loads alone:                 {t['parse']:7.3f} s")
    print(f"json.loads + Bundle.from_json:    {t['load']:7.3f} s   (records: {t['load'] - t['parse']:6.3f} s)")
    print(f"Bundle.to_json + json.dumps:      {t['dump']:7.3f} s")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
