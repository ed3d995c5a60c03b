"""Stage 4 — sections: split a document into body, appendix and references.

The rules are what a careful reader uses on any report — heading shapes, numbering and
position, never a phrase of a particular document (documented in the README, tested in
tests/test_sections.py; `eval/sections_eval.py` prints them against hand-read page ranges):

* A **heading** is a short line (≤ 90 characters, ≤ 14 words) made of a section label and a
  phrase that starts with a capital letter and is not a sentence (no final ".", ";", ":" or
  ",", no ". X" sentence break, no author initials, not mostly numbers). A label alone on a
  line ("A", "6", "B.2") followed by such a phrase on the next line is one heading.
* **Tables of contents** are ignored: a page with five or more entries ending in a page number
  (or dot leaders) making up at least 40% of its lines lists headings, it does not start them.
* **References** start at the first line, after the first fifth of the document, that is only
  a references heading ("References", "Bibliography", optionally numbered or a Markdown heading).
* The **body numbering** is the longest run of top-level numbered headings 1, 2, 3 … before the
  references. A numbered section in that run ("6 Contributors", "8 Authors") is body.
* The **appendix** starts at an "Appendix"/"Appendices"/"Supplementary Material" heading, or at
  a lettered heading "A Title" / "A. Title" (no comma) whose next lettered heading is "B …" or
  "A.1 …" with at least two lines of text between them (so figure labels and multiple-choice
  options do not count), or "A Contributions/Authors/Acknowledgments…", which often stands alone.
  An appendix before the references must come after the last body-numbered heading (and a
  lettered one only in a report whose body is numbered); one after the references ends them.
* A cut whose page holds only running headers/footers above it moves to the top of the page.

A section may begin mid-page; each section keeps its page range (an appendix found both before
and after the references spans both), and counts are per section, so a term that occurs only
inside cited titles shows up as references-only. Every step is one pass over the lines.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate

from .extract import Document

SECTIONS: tuple[str, ...] = ("body", "appendix", "references")

MAX_HEADING_CHARS = 90
MAX_HEADING_WORDS = 14
#: Share of the document (by characters) before which no references heading is accepted.
REF_MIN_FRACTION = 0.2
#: With no references heading, an appendix is looked for only in the second half.
APPENDIX_NO_REFS_FRACTION = 0.5
#: A lettered heading needs this much text before its confirming next heading.
MIN_SECTION_LINES, MIN_SECTION_CHARS = 2, 80

_NUM = r"^(?:\d+(?:\.\d+)*\.?\s+|[IVX]+\.\s+)?"
_REF_HEAD = re.compile(_NUM + r"(references|bibliography|literature cited|works cited)\s*:?\s*$", re.I)
#: Singular "Reference" is also a figure label ("Reference Model"); used only when no plural heading exists.
_REF_HEAD_SINGULAR = re.compile(_NUM + r"reference\s*:?\s*$", re.I)
_APP_WORD = re.compile(
    r"^(?:appendix|appendices|supplementary\s+(?:materials?|information))"
    r"(?:\s+(?P<label>[A-Z](?:\.\d+)*|\d+(?:\.\d+)*))?(?P<sep>\s*[.:\u2013\u2014-])?\s*(?P<title>.*)$",
    re.I,
)
_CONTRIB = re.compile(r"^(contribut|acknowledg|authors?\b|author (list|contributions))", re.I)
_LETTER = re.compile(r"^(?P<letter>[A-Z])(?P<sub>(?:\.\d+)*)\.?\s+(?P<title>\S.*)$")
_NUMBER = re.compile(r"^(?P<num>\d{1,2})(?P<sub>(?:\.\d+)*)\.?\s+(?P<title>\S.*)$")
_LABEL_ONLY = re.compile(r"^(?:\d{1,2}(?:\.\d+)*|[A-Z](?:\.\d+)*)\.?$")
_INITIALS = re.compile(r"(?:^|\s)[A-Z]\.(?:\s|$)")
_SENTENCE_BREAK = re.compile(r"[a-z]{2}\.\s+[A-Z]")
_NUMERIC = re.compile(r"^[\d.,%±+\-–()]+$")
_LEADERS = re.compile(r"(?:\.\s?){4,}")
_TOC_ENTRY = re.compile(r"^(?:[A-Z]|\d{1,2}|[IVX]+)(?:\.\d+)*\.?\s+\S.*\s\d{1,4}$|(?:\.\s?){4,}\s*\d{1,4}$")
_TOC_HEAD = re.compile(r"^(table of )?contents$", re.I)
TOC_MIN_ENTRIES, TOC_MIN_SHARE = 5, 0.4
#: A line on at least this share of pages (digits ignored) is a running header or footer.
FURNITURE_SHARE = 0.3


@dataclass(frozen=True)
class Segment:
    """A run of text from one page that belongs to one section (`heading`: set where the section starts)."""

    section: str
    page: int
    label: str
    text: str
    heading: str = ""


@dataclass(frozen=True)
class SectionSpan:
    """Where a section starts and ends (pages, 1-based, inclusive)."""

    section: str
    start_page: int
    end_page: int
    heading: str


@dataclass(frozen=True)
class _Line:
    page: int  # page index
    off: int  # character offset in the page text
    text: str  # stripped, Markdown '#' removed


@dataclass(frozen=True)
class _Heading:
    line: int  # index into the line list
    kind: str  # "letter" | "number" | "appendix"
    key: str  # letter, or number as text
    sub: bool  # "A.1" / "2.3" rather than top level
    title: str
    text: str


def _lines(doc: Document) -> list[_Line]:
    out = []
    for pi, page in enumerate(doc.pages):
        off = 0
        for line in page.text.split("\n"):
            out.append(_Line(pi, off, line.strip().lstrip("#").strip()))
            off += len(line) + 1
    return out


def _norm(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.lower().split()))


def _furniture(lines: list[_Line], n_pages: int) -> set[str]:
    """Normalised lines repeated at the top or bottom of many pages: running headers, footers, page numbers."""
    if n_pages < 4:
        return set()
    by_page: dict[int, list[str]] = {}
    for ln in lines:
        if ln.text and not ln.text.endswith("."):
            by_page.setdefault(ln.page, []).append(ln.text)
    seen = {(p, _norm(t)) for p, texts in by_page.items() for t in texts[:3] + texts[-3:]}
    per_line = Counter(norm for _, norm in seen)
    need = max(3, FURNITURE_SHARE * n_pages)
    return {norm for norm, n in per_line.items() if n >= need}


def _toc_pages(lines: list[_Line]) -> set[int]:
    """Pages that list headings with page numbers (a table of contents)."""
    entries: Counter[int] = Counter()
    nonempty: Counter[int] = Counter()
    titled: set[int] = set()
    for ln in lines:
        if not ln.text:
            continue
        nonempty[ln.page] += 1
        if _TOC_ENTRY.search(ln.text) or _LEADERS.search(ln.text):
            entries[ln.page] += 1
        if _TOC_HEAD.match(ln.text):
            titled.add(ln.page)
    return {
        p
        for p, n in entries.items()
        if (n >= TOC_MIN_ENTRIES and n >= TOC_MIN_SHARE * nonempty[p]) or (p in titled and n >= 3)
    }


def _is_title(title: str, allow_comma: bool = True) -> bool:
    """A heading's phrase: starts with a capital, short, not a sentence, not an author list or table row."""
    words = title.split()
    if not words or len(words) > MAX_HEADING_WORDS or not title[0].isupper():
        return False
    if title.endswith((".", ",", ";", ":")) or (not allow_comma and "," in title):
        return False
    if _INITIALS.search(title) or _SENTENCE_BREAK.search(title) or _LEADERS.search(title):
        return False
    numeric = sum(1 for w in words if _NUMERIC.match(w))
    return not (numeric >= 2 and numeric * 3 > len(words))


def _parse_heading(i: int, text: str) -> _Heading | None:
    if not text or len(text) > MAX_HEADING_CHARS:
        return None
    m = _APP_WORD.match(text)
    if m and not text.endswith("."):  # "… see Appendix D.2." wrapped onto its own line is a cross-reference
        title = m.group("title")
        if not title or (title[0].isupper() and _is_title(title)) or (m.group("sep") and _is_title(title)):
            return _Heading(i, "appendix", "", False, title, text)
        return None
    m = _LETTER.match(text)
    if m and _is_title(m.group("title"), allow_comma=False):
        return _Heading(i, "letter", m.group("letter"), bool(m.group("sub")), m.group("title"), text)
    m = _NUMBER.match(text)
    if m and _is_title(m.group("title")):
        return _Heading(i, "number", m.group("num"), bool(m.group("sub")), m.group("title"), text)
    return None


def _headings(lines: list[_Line], skip_pages: set[int], furniture: set[str]) -> list[_Heading]:
    """Heading candidates in document order; a label alone on a line takes the next line as its title."""
    out = []
    for i, ln in enumerate(lines):
        if not ln.text or ln.page in skip_pages:
            continue
        text = ln.text
        if _LABEL_ONLY.match(text) and _norm(text) not in furniture:
            nxt = i + 1
            while nxt < len(lines) and nxt <= i + 2 and not lines[nxt].text:
                nxt += 1
            if nxt < len(lines) and lines[nxt].page == ln.page and _is_title(lines[nxt].text):
                text = f"{text} {lines[nxt].text}"
        h = _parse_heading(i, text)
        if h is not None:
            out.append(h)
    return out


def _body_chain_end(heads: list[_Heading]) -> tuple[int, int]:
    """(line index of the last heading, length) of the longest run of top-level headings numbered 1, 2, 3 …"""
    best_at: dict[int, tuple[int, int]] = {}  # number -> (chain length, line index) of the best chain ending there
    best = (0, -1)
    for h in heads:
        if h.kind != "number" or h.sub:
            continue
        n = int(h.key)
        if n == 1:
            length = 1
        elif n - 1 in best_at:
            length = best_at[n - 1][0] + 1
        else:
            continue
        if length >= best_at.get(n, (0, -1))[0]:
            best_at[n] = (length, h.line)
        if length >= best[0]:
            best = (length, h.line)
    return best[1], best[0]


def _appendix_starts(heads: list[_Heading], lines: list[_Line]) -> list[int]:
    """Line indices of headings that open an appendix (before any positional rule)."""
    chars = list(accumulate(len(ln.text) for ln in lines))
    filled = list(accumulate(1 if ln.text else 0 for ln in lines))
    letters = [h for h in heads if h.kind == "letter"]
    starts = [h.line for h in heads if h.kind == "appendix"]
    next_top = [len(lines)] * (len(letters) + 1)  # line of the next top-level lettered heading after letters[k]
    for k in range(len(letters) - 1, -1, -1):
        next_top[k] = letters[k + 1].line if k + 1 < len(letters) and not letters[k + 1].sub else next_top[k + 1]
    for k, h in enumerate(letters):
        if h.sub or h.key != "A":
            continue
        if _CONTRIB.match(h.title):
            starts.append(h.line)
            continue
        nxt = letters[k + 1] if k + 1 < len(letters) else None
        if nxt is None or not ((nxt.key == "B" and not nxt.sub) or (nxt.key == "A" and nxt.sub)):
            continue
        # Section A's extent: up to the next top-level lettered heading (or the end).
        end = next_top[k]
        if filled[end - 1] - filled[h.line] >= MIN_SECTION_LINES and chars[end - 1] - chars[h.line] >= MIN_SECTION_CHARS:
            starts.append(h.line)
    return sorted(starts)


def find_boundaries(doc: Document) -> list[tuple[int, int, str, str]]:
    """Section cuts after the body: (page index, offset, section, heading line), in document order."""
    lines = _lines(doc)
    if not lines:
        return []
    pos = list(accumulate(len(ln.text) + 1 for ln in lines))
    total = pos[-1] or 1

    def frac(i: int) -> float:
        return (pos[i] - len(lines[i].text) - 1) / total

    furniture = _furniture(lines, len(doc.pages))
    toc = _toc_pages(lines)
    ref = None
    for rx in (_REF_HEAD, _REF_HEAD_SINGULAR):
        ref = next(
            (i for i, ln in enumerate(lines) if ln.page not in toc and frac(i) >= REF_MIN_FRACTION and rx.match(ln.text)),
            None,
        )
        if ref is not None:
            break
    heads = _headings(lines, toc, furniture)
    chain_end, chain_len = _body_chain_end([h for h in heads if ref is None or h.line < ref])
    kind = {h.line: h.kind for h in heads}
    before: int | None = None
    after: int | None = None
    for i in _appendix_starts(heads, lines):
        if ref is not None and i > ref:
            after = i if after is None else after
        elif i > chain_end and (kind[i] == "appendix" or chain_len >= 2):
            if frac(i) >= (REF_MIN_FRACTION if ref is not None else APPENDIX_NO_REFS_FRACTION):
                before = i if before is None else before
    cuts = [(i, name) for i, name in ((before, "appendix"), (ref, "references"), (after, "appendix")) if i is not None]
    out = []
    for i, name in cuts:
        ln = lines[i]
        above = doc.pages[ln.page].text[: ln.off].split("\n")
        off = 0 if all(not x.strip() or _norm(x.strip()) in furniture for x in above) else ln.off
        out.append((ln.page, off, name, ln.text))
    return out


def split_sections(doc: Document) -> list[Segment]:
    """Cut the document into per-page segments labelled body / appendix / references."""
    cuts = [(0, 0, "body", ""), *find_boundaries(doc)]
    segments: list[Segment] = []
    for ci, (pi, off, name, head) in enumerate(cuts):
        end_pi, end_off = (cuts[ci + 1][0], cuts[ci + 1][1]) if ci + 1 < len(cuts) else (len(doc.pages) - 1, None)
        first = True
        for p in range(pi, end_pi + 1):
            page = doc.pages[p]
            a = off if p == pi else 0
            b = end_off if p == end_pi and end_off is not None else len(page.text)
            if b > a or (a == 0 and b == 0 and p != end_pi):
                segments.append(Segment(name, page.number, page.label, page.text[a:b], head if first else ""))
                first = False
    return [s for s in segments if s.text.strip() or len(segments) == 1]


def section_spans(segments: list[Segment]) -> list[SectionSpan]:
    """Page range of each section present, in document order."""
    spans: dict[str, SectionSpan] = {}
    for s in segments:
        if s.section not in spans:
            first_line = s.text.strip().split("\n", 1)[0] if s.section != "body" else ""
            spans[s.section] = SectionSpan(s.section, s.page, s.page, (s.heading or first_line)[:80])
        else:
            old = spans[s.section]
            spans[s.section] = SectionSpan(s.section, old.start_page, s.page, old.heading)
    return list(spans.values())
