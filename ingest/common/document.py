"""Extracted documents and the bounds on extraction: the types every reader (PDF, Markdown, HTML) shares."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

#: Bump when extraction output changes, so cached text is re-extracted. (Here, with the record,
#: so the store names its text cache without importing the extractors.)
#: 4: invisible format characters removed, Markdown/HTML soft hyphens joined and line-end
#: hyphenation repaired, character caps, linear-time Markdown rules.
EXTRACTOR_VERSION = 5

Kind = Literal["pdf", "markdown", "html"]

MB = 1024 * 1024


@dataclass(frozen=True)
class ExtractLimits:
    """Bounds on what one source may cost; validated on creation so a bad value fails before any work.

    The file cap equals the download cap (`FetchSettings.max_bytes`), so a local file or an upload
    is bounded like a URL. HTML pages have a smaller cap because trafilatura's time grows with the
    markup (seconds per MB) (a 20 MB page is its own download cap, too). The character caps bound memory and the
    work of every later stage: a real report page holds a few thousand characters and the longest
    reports a few million, so text beyond the caps is cut and the cut is noted in the document.
    """

    max_file_bytes: int = 100 * MB
    max_html_bytes: int = 20 * MB
    max_page_chars: int = 1_000_000
    max_doc_chars: int = 8_000_000

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1 << 40:
                raise ValueError(f"ExtractLimits.{f.name} must be a whole number from 1 to {1 << 40} (got {v!r})")


DEFAULT_LIMITS = ExtractLimits()


class ExtractionError(Exception):
    """The file could not be turned into text; the message says why in user terms."""


@dataclass(frozen=True)
class Page:
    """One PDF page, or one heading-delimited block of a blog post."""

    number: int  # 1-based
    text: str
    label: str = ""  # "12" for PDFs, the heading text for blog blocks


#: Notes that say text was cut (by a cap) start with this, so callers can show them on the status line.
TRUNCATED = "truncated:"


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

    @property
    def warnings(self) -> list[str]:
        """The notes a reader must see with the figures (text cut by a cap), for the status line."""
        return [n for n in self.notes if n.startswith(TRUNCATED)]

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


class Budget:
    """Characters kept so far against the page and document caps, and which pages were cut."""

    def __init__(self, limits: ExtractLimits) -> None:
        self.limits = limits
        self.total = 0
        self.cut_pages: list[str] = []
        self.unread_from: str | None = None  # label of the first page not read (document cap)

    @property
    def full(self) -> bool:
        return self.total >= self.limits.max_doc_chars

    def room(self) -> int:
        """Characters the next page may keep."""
        return max(0, min(self.limits.max_page_chars, self.limits.max_doc_chars - self.total))

    def notes(self, unit: str) -> list[str]:
        out = []
        if self.cut_pages:
            shown = ", ".join(self.cut_pages[:10]) + (" …" if len(self.cut_pages) > 10 else "")
            out.append(
                f"{TRUNCATED} {len(self.cut_pages)} {unit}(s) longer than {self.limits.max_page_chars:,} characters "
                f"cut at that length: {shown}"
            )
        if self.unread_from is not None:
            out.append(
                f"{TRUNCATED} the document reached the cap of {self.limits.max_doc_chars:,} characters; "
                f"text from {unit} {self.unread_from} on was not read"
            )
        return out


def magic_kind(head: bytes) -> Literal["pdf", "html"] | None:
    """ "pdf" or "html" from a file's first bytes (magic number / markup), else None.

    Shared by extraction and the fetcher (and uploads), so a file and a download are judged alike.
    """
    if head.startswith(b"%PDF-") or b"%PDF-" in head[:1024]:
        return "pdf"
    low = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()[:1024]
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or any(t in low for t in (b"<head", b"<body", b"<title")):
        return "html"
    return None
