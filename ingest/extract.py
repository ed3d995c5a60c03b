"""Stage 3 — extract: faithful per-page text from PDFs and prose from Markdown/HTML posts.

Engine choice is measured, not assumed (`eval/extraction_fidelity.py`): on the six corpus
PDFs pdfium's text API keeps word spacing (word counts within 1.5% of `pdftotext | wc -w`,
every keyword count within ±1) and is the fastest engine measured, while pdfplumber's default
`extract_text()` glues words on several of them. pdfplumber remains available as an engine
(`engine="pdfplumber"`, with tighter `x_tolerance`) for PDFs where pdfium misorders text.

Markdown/HTML: only prose is kept. Excluded, by rule: YAML/TOML front matter, fenced code
blocks, Hugo shortcodes (`{{< … >}}`, `{{% … %}}`, and the body of `rawhtml`), display
math (`$$…$$`), HTML tags (their text is kept), image syntax and link targets (link text is
kept). Each heading starts a new block ("page"), labelled by the heading, so evidence from a
post can name its section.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .textnorm import dehyphenate, normalize

#: Bump when extraction output changes, so cached text is re-extracted.
EXTRACTOR_VERSION = 3

Engine = Literal["pdfium", "pdfplumber"]
Kind = Literal["pdf", "markdown", "html"]


class ExtractionError(Exception):
    """The file could not be turned into text; the message says why in user terms."""


@dataclass(frozen=True)
class Page:
    """One PDF page, or one heading-delimited block of a blog post."""

    number: int  # 1-based
    text: str
    label: str = ""  # "12" for PDFs, the heading text for blog blocks


@dataclass
class Document:
    """Extracted text of one source, with what was dropped and how."""

    kind: Kind
    engine: str
    pages: list[Page]
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.pages)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "engine": self.engine,
            "notes": self.notes,
            "pages": [[p.number, p.label, p.text] for p in self.pages],
        }

    @classmethod
    def from_dict(cls, d: dict) -> Document:
        return cls(d["kind"], d["engine"], [Page(n, t, lab) for n, lab, t in d["pages"]], list(d["notes"]))


def magic_kind(head: bytes) -> Literal["pdf", "html"] | None:
    """ "pdf" or "html" from a file's first bytes (magic number / markup), else None.

    Shared by extraction and the fetcher, so a file and a download are judged alike.
    """
    if head.startswith(b"%PDF-") or b"%PDF-" in head[:1024]:
        return "pdf"
    low = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()[:1024]
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or any(t in low for t in (b"<head", b"<body", b"<title")):
        return "html"
    return None


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


def extract_file(
    path: str | Path, engine: Engine = "pdfium", max_pages: int | None = None, progress: Progress | None = None
) -> Document:
    """Extract a local file of any supported kind."""
    p = Path(path)
    if not p.is_file():
        raise ExtractionError(f"{p}: not a file")
    with p.open("rb") as fh:
        head = fh.read(2048)
    if not head:
        raise ExtractionError("empty file (0 bytes)")
    kind = sniff_kind(p, head)
    if kind == "pdf":
        return extract_pdf(p, engine=engine, max_pages=max_pages, progress=progress)
    if b"\x00" in head:  # binary (an image, archive, or UTF-16) would be "counted" as garbage words
        raise ExtractionError(f"binary data in a {kind} file (NUL bytes); wrong file, or not saved as UTF-8 text?")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    doc = extract_html(text) if kind == "html" else extract_markdown(text)
    if not doc.text.strip():  # e.g. only front matter or code: zero counts would look like a measurement
        raise ExtractionError(f"no prose found in the {kind} file (only whitespace, front matter, code or markup)")
    return doc


# --------------------------------------------------------------------------- PDF


def _pdfium_pages(path: Path, max_pages: int | None, progress: Progress | None = None) -> list[str]:
    import pypdfium2 as pdfium

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
            try:
                page = pdf[i]
                tp = page.get_textpage()
                texts.append(tp.get_text_range())
                tp.close()
                page.close()
            except pdfium.PdfiumError as exc:
                raise ExtractionError(f"PDF page {i + 1} of {n} cannot be read ({exc}); the file may be damaged") from exc
            if progress:
                progress(i + 1, n)
        return texts
    finally:
        pdf.close()


def _pdfplumber_pages(path: Path, max_pages: int | None) -> list[str]:
    import pdfplumber
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


def extract_pdf(
    path: str | Path, engine: Engine = "pdfium", max_pages: int | None = None, progress: Progress | None = None
) -> Document:
    """Per-page text of a PDF: normalised (NFKC, ligatures) and de-hyphenated at line ends."""
    p = Path(path)
    raw = _pdfium_pages(p, max_pages, progress) if engine == "pdfium" else _pdfplumber_pages(p, max_pages)
    if not raw:
        raise ExtractionError("PDF has no pages")
    pages = dehyphenate([normalize(t) for t in raw])
    doc = Document("pdf", engine, [Page(i + 1, t, str(i + 1)) for i, t in enumerate(pages)])
    if pages and not any(t.strip() for t in pages):
        raise ExtractionError(f"no text layer: none of the {len(pages)} pages has text (scanned/image-only PDF?); OCR it first")
    empty = [pg.number for pg in doc.pages if not pg.text.strip()]
    if empty:
        doc.notes.append(f"{len(empty)} page(s) without text: {', '.join(map(str, empty[:20]))}")
    return doc


# --------------------------------------------------------------------------- Markdown / HTML

_FRONT_MATTER = re.compile(r"\A\ufeff?(---|\+\+\+)[ \t]*\n.*?\n\1[ \t]*(\n|\Z)", re.S)
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1?[ \t]*\2[ \t]*$", re.S | re.M)
_RAWHTML = re.compile(r"\{\{[<%]\s*rawhtml\s*[>%]\}\}.*?\{\{[<%]\s*/rawhtml\s*[>%]\}\}", re.S)
_SHORTCODE = re.compile(r"\{\{[<%].*?[>%]\}\}", re.S)
_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_HTML_BLOCK_DROP = re.compile(r"<(script|style|video|audio|svg)\b.*?</\1\s*>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_REFLINK = re.compile(r"^\s*\[[^\]]+\]:\s+\S+.*$", re.M)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_EMPH = re.compile(r"(\*\*|__|\*|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)|~~)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_ENTITY = {"&nbsp;": " ", "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'"}


def _inline(line: str) -> str:
    line = _IMAGE.sub("", line)
    line = _LINK.sub(r"\1", line)
    line = _TAG.sub(" ", line)
    for ent, ch in _ENTITY.items():
        line = line.replace(ent, ch)
    line = line.replace("`", "")
    line = _EMPH.sub("", line)
    if line.lstrip().startswith("|") or line.count(" | ") >= 2:
        line = line.replace("|", " ")
    line = re.sub(r"^\s*(>\s*)+", "", line)  # block quotes
    line = re.sub(r"^\s*([-*+]|\d+[.)])\s+", "", line)  # list markers
    return line


def extract_markdown(text: str) -> Document:
    """Prose of a Markdown post, one block per heading; see the module docstring for what is dropped."""
    notes = []
    text = text.replace("\r\n", "\n")
    if _FRONT_MATTER.match(text):
        text = _FRONT_MATTER.sub("", text, count=1)
        notes.append("front matter excluded")
    for rx, what in (
        (_FENCE, "fenced code blocks"),
        (_RAWHTML, "raw-HTML shortcode blocks"),
        (_SHORTCODE, "shortcodes"),
        (_MATH, "display math"),
        (_HTML_BLOCK_DROP, "script/style/media elements"),
        (_COMMENT, "HTML comments"),
    ):
        text, n = rx.subn("\n", text)
        if n:
            notes.append(f"{n} {what} excluded")
    text = _REFLINK.sub("", text)
    blocks: list[tuple[str, list[str]]] = [("(before first heading)", [])]
    for line in text.split("\n"):
        m = _HEADING.match(line)
        if m:
            heading = _inline(m.group(2)).strip()
            blocks.append((heading, [heading]))
        elif not _TABLE_RULE.match(line):
            blocks[-1][1].append(_inline(line))
    kept = [(label, normalize("\n".join(lines)).strip()) for label, lines in blocks]
    pages = [Page(i + 1, body, label) for i, (label, body) in enumerate((lb, b) for lb, b in kept if b)]
    return Document("markdown", "markdown", pages, notes)


def extract_html(html: str) -> Document:
    """Article text of an HTML page via trafilatura (navigation and boilerplate removed), headings kept."""
    import trafilatura

    md = trafilatura.extract(
        html, output_format="markdown", include_tables=True, include_comments=False, include_links=False, favor_recall=True
    )
    if not md or not md.strip():
        raise ExtractionError("no article text found in the HTML page")
    doc = extract_markdown(md)
    doc.kind = "html"
    doc.engine = "trafilatura"
    doc.notes.insert(0, "HTML boilerplate (navigation, footers, comments) removed by trafilatura")
    return doc
