"""Hostile text inputs (issue 8 §4): time per size and peak memory of extraction and counting.

Usage:  python bench/pathological.py [--sizes 100000 200000 300000] [--memory-mb 50] [--skip-memory]

Time family: every generated Markdown input of tests/pathological.py (unclosed comments, scripts,
shortcodes and fences, blank lines, bracket/tag/link openers on long lines, ...), PDF-like text
with 30,000-letter words (de-hyphenation) as a real PDF, and two HTML pages, each at every size.
Printed per input: seconds of `extract_file` (reading, Markdown rules, normalisation,
de-hyphenation) per size, the ratio of the largest to the smallest size (linear = the size
ratio; the old code grew 3-6x per doubling), whether the largest stays under 2 s, and, for
information, the seconds of the later stages (`pipeline_steps.analyse` with the default lens: sections,
keyword counts, sentences, annotation, result tables) on
the largest input. Times are CPU seconds of the process (`time.process_time`): on an idle
machine that is the wall time, and on a shared one it does not swing with other jobs' load.
The first HTML input includes importing trafilatura (about 2 s).

Memory family: 50 MB one-line Markdown (the issue's 6.9 GB case), the same with an emoji (so
Python must hold wide Unicode text), 50 MB of short lines, 50 MB of blank lines, a 100 MB
one-line file (the file cap) and a PDF page with 3 million characters. Each input runs in a
fresh process; its peak resident memory (VmHWM, interpreter included) is printed against
the 1 GB bound.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from ingest.analysis.lens import load_lens  # noqa: E402
from ingest.analysis.lexicon import load_lexicon  # noqa: E402
from ingest.pipeline_steps import analyse  # noqa: E402
from ingest.reading.extract import extract_file  # noqa: E402
from tests.pathological import MARKDOWN, long_words, tricky_pdf  # noqa: E402

MB = 1024 * 1024
TIME_BOUND = 2.0
MEM_BOUND_MB = 1024


def html_page(body: bytes) -> bytes:
    return b"<html><head><title>t</title></head><body><article><h1>Post</h1>" + body + b"</article></body></html>"


def long_word_pdf(size: int) -> bytes:
    """A PDF page whose lines are 30,000-letter words ending in a line-end hyphen."""
    words = long_words(size, joiner="-\n").split("\n")
    return tricky_pdf(words)


#: name -> (file suffix, size -> bytes)
TIME_FAMILY: dict[str, tuple[str, object]] = {
    **{f"md-{name}": (".md", make) for name, make in MARKDOWN.items()},
    "pdf-30000-letter-words": (".pdf", long_word_pdf),
    "html-unclosed-comments": (".html", lambda n: html_page(b"<p>agent</p>" + b"<!-- agent <p>x</p>\n" * (n // 20))),
    "html-open-tags-in-text": (".html", lambda n: html_page(b"<p>agent " + b"&lt;a [x](" * (n // 10) + b"</p>")),
}


def _stream(path: Path, unit: bytes, total: int, head: bytes = b"", tail: bytes = b"") -> Path:
    """Write head + unit repeated up to `total` bytes + tail, a megabyte at a time (the parent stays small)."""
    block = unit * max(1, MB // len(unit))
    with path.open("wb") as fh:
        fh.write(head)
        left = total
        while left > 0:
            fh.write(block[:left])
            left -= len(block)
        fh.write(tail)
    return path


def write_memory_inputs(folder: Path, mb: int) -> dict[str, Path]:
    n = mb * MB
    pdf = folder / "pdf-page-3M-chars.pdf"
    # 30,000 distinct lines of 100 characters (pdfium drops a line that repeats the previous one)
    pdf.write_bytes(tricky_pdf([f"{i:06d} " + ("agent tool reward " * 6)[:93] for i in range(30_000)]))
    return {
        f"md-one-line-{mb}MB": _stream(folder / "a.md", b"agent tool reward ", n),
        f"md-one-line-{mb}MB-emoji": _stream(folder / "b.md", b"agent tool reward ", n, head="\U0001f600 ".encode()),
        f"md-short-lines-{mb}MB": _stream(folder / "c.md", b"agent tool reward line\n", n),
        f"md-blank-lines-{mb}MB": _stream(folder / "d.md", b"\n", n, head=b"agent\n", tail=b"agent\n"),
        f"md-tags-{mb}MB": _stream(folder / "e.md", b"<b>agent</b> [x](y) ", n),
        "md-one-line-100MB-file-cap": _stream(folder / "f.md", b"agent tool reward ", 100 * MB - 16),
        "pdf-page-3M-chars": pdf,
    }


def peak_rss_mb() -> float:
    """Peak resident memory of this process: VmHWM (reset by exec, unlike ru_maxrss), else ru_maxrss."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_one(path: Path) -> dict:
    """In this process: extract + analyse once; seconds of each and peak RSS in MB."""

    lexicon, lens = load_lexicon(), load_lens()
    t0 = time.process_time()
    doc = extract_file(path)
    t1 = time.process_time()
    analyse(doc, lexicon, lens)
    t2 = time.process_time()
    return {
        "extract_s": t1 - t0,
        "analyse_s": t2 - t1,
        "chars": sum(len(p.text) for p in doc.pages),
        "warnings": doc.warnings,
        "peak_mb": peak_rss_mb(),
    }


def in_child(path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--one", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 200_000, 300_000])
    ap.add_argument("--memory-mb", type=int, default=50)
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return 0

    lexicon, lens = load_lexicon(), load_lens()
    ok = True
    with tempfile.TemporaryDirectory(prefix="pathological.") as tmp:
        folder = Path(tmp)
        sizes = sorted(args.sizes)
        head = " ".join(f"{s // 1000:>5} KB" for s in sizes)
        print(f"{'input':34} extraction: {head}  {'ratio':>6}  bar (<{TIME_BOUND:.0f} s) | analysis at {sizes[-1] // 1000} KB")
        for name, (suffix, make) in TIME_FAMILY.items():
            secs, count_s = [], 0.0
            for size in sizes:
                p = folder / f"{name}-{size}{suffix}"
                p.write_bytes(make(size))  # type: ignore[operator]
                t0 = time.process_time()
                doc = extract_file(p)
                t1 = time.process_time()
                analyse(doc, lexicon, lens)
                secs.append(t1 - t0)
                count_s = time.process_time() - t1
                p.unlink()
            good = secs[-1] < TIME_BOUND
            ok &= good
            ratio = secs[-1] / max(secs[0], 1e-3)
            cells = " ".join(f"{s:7.2f}s" for s in secs)
            print(f"{name:34}             {cells}  {ratio:5.1f}x  {'PASS' if good else 'FAIL':13} | {count_s:6.2f}s")
        print(f"\nsize ratio {sizes[-1] / sizes[0]:.1f}x: a linear input's time grows about as much\n")
        if not args.skip_memory:
            print(f"{'input':32} {'extract':>8} {'count':>7} {'chars kept':>11} {'peak RSS':>9}  bar (<{MEM_BOUND_MB} MB)")
            for name, path in write_memory_inputs(folder, args.memory_mb).items():
                r = in_child(path)
                path.unlink()
                if "error" in r:
                    ok = False
                    print(f"{name:32} ERROR {r['error']}")
                    continue
                good = r["peak_mb"] < MEM_BOUND_MB
                ok &= good
                print(
                    f"{name:32} {r['extract_s']:7.2f}s {r['analyse_s']:6.2f}s {r['chars']:>11,} {r['peak_mb']:7.0f} MB"
                    f"  {'PASS' if good else 'FAIL'}  {'; '.join(r['warnings'])[:90]}"
                )
    print("\nall bars:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    with recorded(__file__, enabled="--one" not in sys.argv):
        raise SystemExit(main())
