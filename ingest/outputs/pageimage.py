""" "See the page": a quoted sentence shown where it stands in its source.

PDF: the page rendered by pdfium as a PNG with the quote's character boxes (pdfium's text layer)
drawn over it. Markdown/HTML: the stored block (the paragraph under its heading) with the quote
marked.

A page is hostile input like any other (a 1 KB PDF can declare a 14,400 pt page, 8 GB at screen
scale), so rendering is a bounded job: it runs in a child process with a memory and a time limit
(the caller's runner, `isolate`: `ingest.run.isolate.isolate`, see `ingest.sources.isolation`), the
scale is lowered until the image has at most `MAX_PIXELS` pixels, and at most `MAX_RENDERS` renders
run at once. A render over a limit raises `RenderRefused`
with a message for the page. The PNG is kept in memory only (a bounded LRU, `CACHE_BYTES`):
no request writes to disk, so links with ever new quotes cannot fill it, read-only or not.

Only a report's own source is ever opened: its stored source path (relative to its YAML) or its
cached download, and only when the file's SHA-256 equals the hash the store recorded when the
report was ingested. Nothing from a URL or a form is used as a path.
"""

from __future__ import annotations

import functools
import io
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from ingest.sources.fetch import cache_entry, sha256_file
from ingest.sources.isolation import Isolate, PeakMemory
from ingest.store.store import Store

MAX_SCALE = 3.0
HIGHLIGHT = (255, 200, 0, 90)
#: Most pixels of a rendered page (about 2,900 × 2,900): a bigger page is rendered at a lower scale.
MAX_PIXELS = 8_000_000
#: Limits of one render's process.
RENDER_SECONDS = 8.0
RENDER_MB = 1024
#: Renders running at once in this process (each in its own child).
MAX_RENDERS = 2
#: Bytes of PNG kept in the in-memory cache (least recently used dropped first).
CACHE_BYTES = 64 * 1024 * 1024
#: Made-up quotes remembered as "not on this page" (each a few hundred bytes).
MAX_ALIASES = 4096
_SLOTS = threading.BoundedSemaphore(MAX_RENDERS)


class RenderRefused(ValueError):
    """The page cannot be shown: outside the document, or over a render limit; the message is for the page."""


@dataclass(frozen=True)
class PageImage:
    """A rendered page: the PNG bytes, how many boxes mark the quote (0: the quote was not found),
    and the scale used (lower than asked when the page is huge)."""

    png: bytes
    boxes: int
    scale: float


class _Cache:
    """PNG bytes by key, at most `limit` bytes in all, least recently used out first; thread-safe."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.items: OrderedDict[tuple, PageImage] = OrderedDict()
        self.aliases: OrderedDict[tuple, tuple] = OrderedDict()
        self.lock = threading.Lock()

    def alias(self, key: tuple, target: tuple) -> None:
        """Let `key` find the entry of `target` (a made-up quote -> the unmarked page); a bounded map."""
        with self.lock:
            self.aliases[key] = target
            while len(self.aliases) > MAX_ALIASES:
                self.aliases.popitem(last=False)

    def get(self, key: tuple) -> PageImage | None:
        with self.lock:
            key = self.aliases.get(key, key)
            hit = self.items.get(key)
            if hit is not None:
                self.items.move_to_end(key)
            return hit

    def put(self, key: tuple, img: PageImage) -> None:
        if len(img.png) > self.limit:
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size -= len(old.png) if old else 0
            self.items[key] = img
            self.size += len(img.png)
            while self.size > self.limit:
                _, gone = self.items.popitem(last=False)
                self.size -= len(gone.png)


_CACHE = _Cache(CACHE_BYTES)
#: Peak memory of the render processes started by this process (for eval/bad_inputs.py).
PEAKS = PeakMemory()


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


def capped_scale(width_pt: float, height_pt: float, scale: float, max_pixels: int = MAX_PIXELS) -> float:
    """`scale`, lowered so that the rendered page has at most `max_pixels` pixels."""
    area = max(width_pt, 1.0) * max(height_pt, 1.0) * scale * scale
    # (a little under: the renderer rounds each side up to whole pixels)
    return scale if area <= max_pixels else scale * math.sqrt(max_pixels / area) * 0.995


def render_pdf_page(pdf: Path, sha256: str, page: int, quote: str, scale: float = 1.6, *, isolate: Isolate) -> PageImage:
    """Page `page` (1-based) of `pdf` as a PNG with the quote highlighted, rendered through `isolate` (a
    limited child process; no default, so no caller renders a hostile page in its own process by
    omission); cached in memory by file hash, page, scale and quote. Raises RenderRefused."""
    scale = min(max(scale, 0.5), MAX_SCALE)
    key = (sha256, page, scale, quote)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    with _SLOTS:
        result = isolate(_render_job, (str(pdf), page, quote, scale), RENDER_SECONDS, RENDER_MB)
    PEAKS.note(result.peak_mb)
    if not result.ok:
        if result.kind == "timeout":
            raise RenderRefused(f"this page took longer than {RENDER_SECONDS:g} s to render, so it is not shown")
        if result.kind == "memory":
            raise RenderRefused(f"this page needs more than {RENDER_MB / 1024:g} GB of memory to render, so it is not shown")
        raise RenderRefused(f"this page could not be rendered ({result.message})")
    kind, value = result.value
    if kind != "ok":
        raise RenderRefused(str(value))
    img = PageImage(*value)
    if img.boxes or not quote:
        _CACHE.put(key, img)
    else:  # a quote not on the page gives the unmarked page: one image per page, whatever was asked for
        _CACHE.put((sha256, page, scale, ""), img)
        _CACHE.alias(key, (sha256, page, scale, ""))
    return img


def _render_job(arg: tuple, _progress: object = None) -> tuple[str, object]:
    """In the render's child process: ("ok", (png, boxes, scale)) or ("error", message)."""
    path, page, quote, scale = arg
    try:
        return "ok", _render(Path(path), page, quote, scale)
    except ValueError as exc:
        return "error", str(exc)


def _render(pdf: Path, page: int, quote: str, scale: float) -> tuple[bytes, int, float]:
    """Find the quote's character boxes, render the page (pixel-capped), draw the boxes; PNG bytes."""
    import pypdfium2 as pdfium  # deferred: dashboard pages that draw no page image skip pdfium and PIL (bench/import_costs.py)
    from PIL import Image, ImageDraw

    doc = pdfium.PdfDocument(str(pdf))
    try:
        if not 1 <= page <= len(doc):
            raise ValueError(f"page {page} is outside 1–{len(doc)}")
        p = doc[page - 1]
        width, height = p.get_size()
        scale = capped_scale(width, height, scale)
        rects: list[tuple[float, float, float, float]] = []
        tp = p.get_textpage()
        for needle in _needles(quote) if quote else []:
            searcher = tp.search(needle, match_case=False, match_whole_word=False)
            hit = searcher.get_next()
            if hit:
                index, count = hit
                rects = [tp.get_rect(i) for i in range(tp.count_rects(index, count))]
                break
        img = p.render(scale=scale).to_pil().convert("RGBA")
    finally:
        doc.close()
    overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for left, bottom, right, top in rects:
        box = (left * scale - 1, (height - top) * scale - 1, right * scale + 1, (height - bottom) * scale + 1)
        draw.rectangle(box, fill=HIGHLIGHT, outline=(220, 120, 0, 255))
    buf = io.BytesIO()
    Image.alpha_composite(img, overlay).convert("RGB").save(buf, format="PNG")
    return buf.getvalue(), len(rects), scale


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
