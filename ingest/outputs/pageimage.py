""" "See the page": a quoted sentence shown where it stands in its source.

PDF: the page rendered by pdfium as a PNG with the quote's character boxes (pdfium's text layer)
drawn over it, cached under data/cache/pages/. Markdown/HTML: the stored block (the paragraph
under its heading) with the quote marked.

Only a report's own source is ever opened: its stored source path (relative to its YAML) or its
cached download, and only when the file's SHA-256 equals the hash the store recorded when the
report was ingested. Nothing from a URL or a form is used as a path.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ingest.sources.fetch import cache_entry, sha256_file
from ingest.store.store import Store

MAX_SCALE = 3.0
_PDFIUM = threading.Lock()
HIGHLIGHT = (255, 200, 0, 90)


@dataclass(frozen=True)
class PageImage:
    """A rendered page: the PNG file, how many boxes mark the quote (0: the quote was not found)."""

    png: Path
    boxes: int


@functools.lru_cache(maxsize=256)
def _hash(path: str, mtime_ns: int, size: int) -> str:
    return sha256_file(Path(path))


def source_file(store: Store, report: dict) -> Path | None:
    """The report's ingested source file, if it is still there unchanged (SHA-256 as stored)."""
    want = report.get("sha256")
    if not isinstance(want, str) or not want:
        return None
    candidates: list[Path] = []
    yaml_path, rel = report.get("yaml_path"), report.get("source_path")
    if isinstance(yaml_path, str) and isinstance(rel, str) and rel:
        candidates.append(Path(yaml_path).parent / rel)
    url = report.get("source_url")
    if isinstance(url, str) and url:
        entry = cache_entry(store.http_dir, url)
        if entry:
            candidates.append(store.http_dir / entry["file"])
    for p in candidates:
        try:
            st = p.stat()
            if p.is_file() and _hash(str(p.resolve()), st.st_mtime_ns, st.st_size) == want:
                return p
        except OSError:
            continue
    return None


def _needles(quote: str) -> list[str]:
    """What to search for: the whole quote, then shorter leading parts (line breaks and hyphenation
    in the PDF's text layer can differ from the normalised quote)."""
    q = re.sub(r"\s+", " ", quote).strip()
    words = q.split(" ")
    out = [q]
    for n in (12, 8, 5):
        if len(words) > n:
            out.append(" ".join(words[:n]))
    return out


def render_pdf_page(pdf: Path, sha256: str, page: int, quote: str, cache_dir: Path, scale: float = 1.6) -> PageImage:
    """Page `page` (1-based) of `pdf` as a PNG with the quote highlighted; cached by file hash, page and quote."""
    scale = min(max(scale, 0.5), MAX_SCALE)

    def cached(q: str) -> tuple[Path, Path]:
        key = hashlib.sha256(f"{sha256}|{page}|{scale}|{q}".encode()).hexdigest()[:32]
        png = Path(cache_dir) / f"{key}.png"
        return png, png.with_suffix(".n")

    out, meta = cached(quote)
    if out.exists() and meta.exists():
        return PageImage(out, int(meta.read_text() or 0))
    with _PDFIUM:  # pdfium is not thread-safe, and each dashboard session runs in its own thread
        return _render(pdf, page, quote, scale, cached)


def _render(pdf: Path, page: int, quote: str, scale: float, cached: Callable[[str], tuple[Path, Path]]) -> PageImage:
    """Find the quote's character boxes, render the page, draw the boxes, write PNG and box count."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    out, meta = cached(quote)
    doc = pdfium.PdfDocument(str(pdf))
    try:
        if not 1 <= page <= len(doc):
            raise ValueError(f"page {page} is outside 1–{len(doc)}")
        p = doc[page - 1]
        height = p.get_height()
        rects: list[tuple[float, float, float, float]] = []
        tp = p.get_textpage()
        for needle in _needles(quote) if quote else []:
            searcher = tp.search(needle, match_case=False, match_whole_word=False)
            hit = searcher.get_next()
            if hit:
                index, count = hit
                rects = [tp.get_rect(i) for i in range(tp.count_rects(index, count))]
                break
        if not rects:  # text not on the page: one unmarked image per page, whatever was asked for
            out, meta = cached("")
            if out.exists() and meta.exists():
                return PageImage(out, 0)
        img = p.render(scale=scale).to_pil().convert("RGBA")
    finally:
        doc.close()
    overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for left, bottom, right, top in rects:
        box = (left * scale - 1, (height - top) * scale - 1, right * scale + 1, (height - bottom) * scale + 1)
        draw.rectangle(box, fill=HIGHLIGHT, outline=(220, 120, 0, 255))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    Image.alpha_composite(img, overlay).convert("RGB").save(tmp, format="PNG")
    tmp.replace(out)
    tmp_meta = meta.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    tmp_meta.write_text(str(len(rects)))
    tmp_meta.replace(meta)
    return PageImage(out, len(rects))


def block_text(store: Store, report: dict, page: int) -> tuple[str, str] | None:
    """(heading, text) of block `page` of a Markdown/HTML source, from the stored extracted text."""
    sha = report.get("sha256")
    if not isinstance(sha, str):
        return None
    # the text cache is keyed by the run's PDF engine setting, whatever the source kind
    engines = dict.fromkeys([str(report.get("engine")), "pdfium", "pdfplumber"])
    doc = next((d for d in (store.get_text(sha, e) for e in engines) if d is not None), None)
    if doc is None:
        return None
    for pg in doc.pages:
        if pg.number == page:
            return pg.label, pg.text
    return None
