"""Stage 3 — extract: faithful per-page text from PDFs; Markdown/HTML posts go to `markdown.py`.

Engine choice is measured, not assumed (`eval/extraction_fidelity.py` prints the comparison):
pdfium's text API keeps word spacing (word and keyword counts agree with `pdftotext`) and is the
fastest engine measured, while pdfplumber's default `extract_text()` glues words on several corpus
PDFs. pdfplumber remains available as an engine (`engine="pdfplumber"`, with tighter
`x_tolerance`) for PDFs where pdfium misorders text.

Hostile input is bounded (`ExtractLimits`, in `ingest/common/document.py`): a file-size cap, and caps on the
characters kept per page and per document (the rest is cut, with a note).
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ingest.common.document import (
    DEFAULT_LIMITS,
    MB,
    Budget,
    Document,
    ExtractionError,
    ExtractLimits,
    Kind,
    Page,
    magic_kind,
)
from ingest.reading.textnorm import dehyphenate, normalize

Engine = Literal["pdfium", "pdfplumber"]


def sniff_kind(path: Path, head: bytes) -> Kind:
    """Decide the format by magic bytes first, then by extension (a PDF link that served HTML is caught)."""
    magic = magic_kind(head)
    if magic == "pdf":
        return "pdf"
    looks_html = magic == "html"
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        what = "it looks like an HTML page (an error or login page?)" if looks_html else "it does not start with %PDF-"
        raise ExtractionError(f"not a PDF: {what}")
    if looks_html:
        return "html"
    if suffix in (".html", ".htm"):
        return "html"
    if suffix in (".md", ".markdown", ".txt", ""):
        return "markdown"
    raise ExtractionError(f"unsupported file type {suffix!r}; use a PDF, Markdown (.md) or HTML file")


#: Called as progress(pages_done, pages_total) while a PDF is read, so long documents show progress.
Progress = Callable[[int, int], None]


def _size_error(size: int, cap: int, what: str) -> ExtractionError:
    return ExtractionError(f"{what} is {size:,} bytes, more than the size cap of {cap:,} bytes")


def _text_encoding(raw: bytes) -> str:
    """ "utf-8" when the bytes are valid UTF-8, else "latin-1"; checked in slices (no full-size copy)."""
    dec = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    try:
        for i in range(0, len(raw), MB):
            dec.decode(view[i : i + MB])
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8"


def extract_file(
    path: str | Path,
    engine: Engine = "pdfium",
    max_pages: int | None = None,
    progress: Progress | None = None,
    *,
    limits: ExtractLimits | None = None,
    keep: KeptPages | None = None,
) -> Document:
    """Extract a local file of any supported kind, within `limits` (size and character caps).

    `keep`: PDF pages to keep open for a later stage (see `KeptPages`); the caller closes it."""
    limits = limits or DEFAULT_LIMITS
    p = Path(path)
    if not p.is_file():
        raise ExtractionError(f"{p}: not a file")
    size = p.stat().st_size
    if size > limits.max_file_bytes:
        raise _size_error(size, limits.max_file_bytes, "the file")
    with p.open("rb") as fh:
        head = fh.read(2048)
    if not head:
        raise ExtractionError("empty file (0 bytes)")
    kind = sniff_kind(p, head)
    if kind == "pdf":
        return extract_pdf(p, engine=engine, max_pages=max_pages, progress=progress, limits=limits, keep=keep)
    if b"\x00" in head:  # binary (an image, archive, or UTF-16) would be "counted" as garbage words
        raise ExtractionError(f"binary data in a {kind} file (NUL bytes); wrong file, or not saved as UTF-8 text?")
    if kind == "html" and size > limits.max_html_bytes:
        raise _size_error(size, limits.max_html_bytes, "the HTML page")
    with p.open("rb") as fh:
        raw = fh.read(limits.max_file_bytes + 1)
    if len(raw) > limits.max_file_bytes:  # the file grew since stat
        raise _size_error(len(raw), limits.max_file_bytes, "the file")
    encoding = _text_encoding(raw)
    # Imported here: a process that extracts no post (the driver, a cached text, a PDF) is spared it.
    from ingest.reading.markdown import extract_html, extract_markdown

    if kind == "html":
        doc = extract_html(raw.decode(encoding), limits=limits)
    else:
        doc = extract_markdown(raw, limits=limits, encoding=encoding)
    if not doc.text.strip():  # e.g. only front matter or code: zero counts would look like a measurement
        raise ExtractionError(f"no prose found in the {kind} file (only whitespace, front matter, code or markup)")
    return doc


# --------------------------------------------------------------------------- PDF


class KeptPages:
    """pdfium pages (with their text pages) that the extraction keeps open for a later stage.

    Why: the results stage re-reads a few pages (those that may hold a table) with pdfium for
    their word boxes; loading a page and its text page again costs about as much as the first
    time. Extraction offers each page whose raw text passes `wanted` (at most `limit` of them,
    so memory stays bounded) and keeps the document open; `get` hands a page back, and `close`
    (always call it) frees them all. A page not kept is simply loaded again by its reader, so
    what is kept changes the time, never a result.
    """

    def __init__(self, wanted: Callable[[str], bool], limit: int = 32) -> None:
        self.wanted, self.limit = wanted, limit
        self.pages: dict[int, tuple[Any, Any]] = {}  # page number -> (PdfPage, PdfTextPage)
        self.texts: dict[int, str] = {}  # page number -> the text page's text as extraction read it
        self.pdf: Any = None  # the open PdfDocument (kept open while pages are)

    def offer(self, number: int, page: Any, textpage: Any, text: str) -> bool:
        """Keep this page if it is wanted and there is room; True when kept (do not close it then)."""
        if len(self.pages) < self.limit and self.wanted(text):
            self.pages[number] = (page, textpage)
            self.texts[number] = text
            return True
        return False

    def get(self, number: int) -> tuple[Any, Any] | None:
        return self.pages.get(number)

    def text(self, number: int) -> str | None:
        """The raw text extraction read from a kept page's text page (cut short when the character
        budget was reached: `pdf_words.page_words` uses it only when it is whole)."""
        return self.texts.get(number)

    def close(self) -> None:
        for page, textpage in self.pages.values():
            with contextlib.suppress(Exception):
                textpage.close()
                page.close()
        self.pages.clear()
        self.texts.clear()
        if self.pdf is not None:
            with contextlib.suppress(Exception):
                self.pdf.close()
            self.pdf = None


def _pdfium_pages(
    path: Path,
    max_pages: int | None,
    progress: Progress | None = None,
    budget: Budget | None = None,
    keep: KeptPages | None = None,
) -> list[str]:
    import pypdfium2 as pdfium  # deferred: the dashboard imports this module but reads no PDF (bench/import_costs.py)

    budget = budget or Budget(DEFAULT_LIMITS)
    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise ExtractionError("encrypted PDF: it needs a password to open") from exc
        raise ExtractionError(f"unreadable PDF ({msg}); the file may be truncated or damaged") from exc
    try:
        n = len(pdf)
        if max_pages is not None and n > max_pages:
            raise ExtractionError(f"PDF has {n} pages, more than the limit of {max_pages}")
        texts = []
        for i in range(n):
            if budget.full:  # document cap reached: keep the page (numbering) but do not read it
                if budget.unread_from is None:
                    budget.unread_from = str(i + 1)
                texts.append("")
                continue
            try:
                page = pdf[i]
                tp = page.get_textpage()
                room, count = budget.room(), tp.count_chars()
                if count > room:  # bounded before any Python string is made of it
                    text = tp.get_text_range(0, room)
                    budget.cut_pages.append(str(i + 1))
                else:
                    text = tp.get_text_range()
                budget.total += len(text)
                texts.append(text)
                if keep is None or not keep.offer(i + 1, page, tp, text):
                    tp.close()
                    page.close()
            except pdfium.PdfiumError as exc:
                raise ExtractionError(f"PDF page {i + 1} of {n} cannot be read ({exc}); the file may be damaged") from exc
            if progress:
                progress(i + 1, n)
        if keep is not None and keep.pages:
            keep.pdf, pdf = pdf, None  # the kept pages need their document: `keep.close()` closes it
        return texts
    finally:
        if pdf is not None:  # (not handed to `keep`: an error, or no page kept)
            if keep is not None:
                keep.close()  # pages before their document
            pdf.close()


def _pdfplumber_pages(path: Path, max_pages: int | None) -> list[str]:
    import pdfplumber  # deferred: the optional engine (bench/import_costs.py)
    from pdfminer.pdfdocument import PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        with pdfplumber.open(str(path)) as pdf:
            if max_pages is not None and len(pdf.pages) > max_pages:
                raise ExtractionError(f"PDF has {len(pdf.pages)} pages, more than the limit of {max_pages}")
            # x_tolerance=1 instead of 3: the default glues words on tightly set arXiv PDFs.
            return [p.extract_text(x_tolerance=1, y_tolerance=3) or "" for p in pdf.pages]
    except PDFPasswordIncorrect as exc:
        raise ExtractionError("encrypted PDF: it needs a password to open") from exc
    except PDFSyntaxError as exc:
        raise ExtractionError(f"unreadable PDF ({exc}); the file may be truncated or damaged") from exc
    except PdfminerException as exc:  # pdfplumber wraps pdfminer's errors (bad xref, EOF, password)
        cause = exc.args[0] if exc.args else exc
        if isinstance(cause, PDFPasswordIncorrect):
            raise ExtractionError("encrypted PDF: it needs a password to open") from exc
        raise ExtractionError(f"unreadable PDF ({cause}); the file may be truncated or damaged") from exc


def _cap_pages(raw: list[str], budget: Budget) -> list[str]:
    """Apply the character caps to page texts that were read whole (pdfplumber)."""
    out = []
    for i, t in enumerate(raw):
        room = budget.room()
        if budget.full:
            if budget.unread_from is None and t:
                budget.unread_from = str(i + 1)
            t = ""
        elif len(t) > room:
            t = t[:room]
            budget.cut_pages.append(str(i + 1))
        budget.total += len(t)
        out.append(t)
    return out


def extract_pdf(
    path: str | Path,
    engine: Engine = "pdfium",
    max_pages: int | None = None,
    progress: Progress | None = None,
    *,
    limits: ExtractLimits | None = None,
    keep: KeptPages | None = None,
) -> Document:
    """Per-page text of a PDF: normalised (NFKC, ligatures, hidden characters) and de-hyphenated at line ends.

    `keep` (pdfium only) keeps some pages open for a later stage; the caller closes it."""
    p = Path(path)
    budget = Budget(limits or DEFAULT_LIMITS)
    if engine == "pdfium":
        raw = _pdfium_pages(p, max_pages, progress, budget, keep)
    else:
        raw = _cap_pages(_pdfplumber_pages(p, max_pages), budget)
    if not raw:
        raise ExtractionError("PDF has no pages")
    pages = dehyphenate([normalize(t) for t in raw])
    doc = Document("pdf", engine, [Page(i + 1, t, str(i + 1)) for i, t in enumerate(pages)])
    if pages and not any(t.strip() for t in pages):
        raise ExtractionError(f"no text layer: none of the {len(pages)} pages has text (scanned/image-only PDF?); OCR it first")
    unread = int(budget.unread_from) if budget.unread_from else len(pages) + 1
    empty = [pg.number for pg in doc.pages if not pg.text.strip() and pg.number < unread]
    if empty:
        doc.notes.append(f"{len(empty)} page(s) without text: {', '.join(map(str, empty[:20]))}")
    doc.notes.extend(budget.notes("page"))
    return doc
