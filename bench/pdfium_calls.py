"""pdfium's per-word text calls: pypdfium2's typed bindings, and what an untyped prototype would save.

Usage:  python bench/pdfium_calls.py [--corpus ../shared/corpus] [--calls 200000]

`ingest.reading.pdf_words.page_words` makes four pdfium calls per word (count rects, get rect,
char origin, is generated) through pypdfium2's public raw API, whose declared argument types
make a wrong argument raise instead of crashing pdfium. A prototype that declares only the return
type skips ctypes' per-argument conversion, at the price of that check; the code does not use it.
This prints the time per call both ways (best of 5, CPU), the CPU time of `page_words` over every
page of the corpus PDFs, and how much of it the unchecked calls would save.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_log import recorded  # noqa: E402
from ingest.reading.pdf_words import page_words  # noqa: E402

#: The unchecked alternative measured here (not used by the code): the same functions taken by
#: address through a prototype that declares only the C int they return.
_PLAIN_INT_CALL = ctypes.CFUNCTYPE(ctypes.c_int)
_UNCHECKED = tuple(
    _PLAIN_INT_CALL(ctypes.cast(fn, ctypes.c_void_p).value)
    for fn in (
        pdfium_c.FPDFText_CountRects,
        pdfium_c.FPDFText_GetRect,
        pdfium_c.FPDFText_GetCharOrigin,
        pdfium_c.FPDFText_IsGenerated,
    )
)


def per_call_ns(fn: Callable[[int], object], calls: int) -> float:
    """CPU nanoseconds per call of `fn(i)`, best of 5."""
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        for i in range(calls):
            fn(i)
        best = min(best, time.process_time() - t)
    return best / calls * 1e9


def call_times(pdf: Path, calls: int) -> list[tuple[str, float, float]]:
    """(call, typed ns, unchecked ns) on the text page of one page of `pdf`."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        page = doc[min(1, len(doc) - 1)]
        tp = page.get_textpage()
        raw = tp.raw
        bare = ctypes.c_void_p(ctypes.cast(raw, ctypes.c_void_p).value)
        n = max(pdfium_c.FPDFText_CountChars(raw), 1)
        d = [ctypes.c_double() for _ in range(4)]
        r = [ctypes.byref(x) for x in d]
        count_rects, get_rect, get_origin, generated = _UNCHECKED
        rows = [
            ("FPDFText_CountRects", lambda i: pdfium_c.FPDFText_CountRects(raw, i % n, 3), lambda i: count_rects(bare, i % n, 3)),
            ("FPDFText_GetRect", lambda i: pdfium_c.FPDFText_GetRect(raw, 0, *r), lambda i: get_rect(bare, 0, *r)),
            (
                "FPDFText_GetCharOrigin",
                lambda i: pdfium_c.FPDFText_GetCharOrigin(raw, i % n, r[0], r[1]),
                lambda i: get_origin(bare, i % n, r[0], r[1]),
            ),
            ("FPDFText_IsGenerated", lambda i: pdfium_c.FPDFText_IsGenerated(raw, i % n), lambda i: generated(bare, i % n)),
        ]
        out = [(name, per_call_ns(a, calls), per_call_ns(b, calls)) for name, a, b in rows]
        tp.close()
        page.close()
        return out
    finally:
        doc.close()


def words_time(pdfs: list[Path]) -> tuple[int, int, float]:
    """(pages, words, CPU seconds of page_words) over every page of `pdfs`."""
    pages = words = 0
    cpu = 0.0
    for pdf in pdfs:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            for i in range(len(doc)):
                page = doc[i]
                t = time.process_time()
                words += len(page_words(page))
                cpu += time.process_time() - t
                pages += 1
                page.close()
        finally:
            doc.close()
    return pages, words, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    ap.add_argument("--calls", type=int, default=200_000)
    args = ap.parse_args()
    pdfs = sorted((args.corpus / "pdf").glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {args.corpus / 'pdf'}")
        return 2
    print(f"pypdfium2 {pdfium.PYPDFIUM_INFO}, pdfium {pdfium.PDFIUM_INFO}")
    print(f"CPU ns per call, best of 5 x {args.calls} calls ({pdfs[0].name}):")
    print(f"  {'call':24s} {'typed (used)':>18s} {'unchecked':>16s}")
    saved = 0.0
    for name, declared, plain in call_times(pdfs[0], args.calls):
        print(f"  {name:24s} {declared:15.0f} ns {plain:13.0f} ns   ({declared / plain:.1f}x)")
        saved += declared - plain
    pages, words, cpu = words_time(pdfs)
    print(f"page_words: {len(pdfs)} PDFs, {pages} pages, {words} words, {cpu:.3f} s CPU")
    print(f"  unchecked calls would save about {saved * words / 1e9:.3f} s of it (one call of each per word)")
    return 0


if __name__ == "__main__":
    with recorded(__file__):
        raise SystemExit(main())
