"""Stage 4 — sections: split a document into body, appendix and references.

The rules are what a careful reader uses on any report — heading shapes, numbering and
position, never a phrase of a particular document (documented in the README, tested in
tests/test_sections.py; `eval/sections_eval.py` prints them against hand-read page ranges):

* A **heading** is a short line (≤ 90 characters, ≤ 14 words) made of a section label and a
  phrase that starts with a capital letter and is not a sentence (no final ".", ";", ":" or
  ",", no ". X" sentence break, no author initials, not mostly numbers, no final "of"/"the"…,
  no leading "We"/"Our"…). A label alone on a line ("A", "6", "B.2") followed by such a phrase
  on the next line is one heading. After "Appendix" a title needs a label or a separator.
* **Tables of contents** are ignored: a page titled "Contents" with three or more lines ending in
  a page number, or any page where labelled entries ending in a page number (or dot leaders) are
  five or more and at least 40% of its lines, lists headings; it does not start them.
* **References** start at the first line, after the first fifth of the document, that is only
  a references heading ("References", "Bibliography", optionally numbered or a Markdown heading).
* The **body numbering** is the longest run of top-level numbered headings 1, 2, 3 … before the
  references. A numbered section in that run ("6 Contributors", "8 Authors") is body.
* The **appendix** starts at an "Appendix"/"Appendices"/"Supplementary Material" heading, or at
  a lettered heading "A Title" / "A. Title" (no comma) whose next lettered heading is "B …" or
  "A.1 …" and whose section holds at least two lines of text (so figure labels and multiple-choice
  options do not count), or a short "A Contributions/Authors/Acknowledgments…", which often stands
  alone. An appendix before the references must come after the last body-numbered heading (a
  lettered one only in a report whose body is numbered) and after the first fifth; one after the
  references ends them. With no references, an appendix is looked for in the second half.
* Everything after the bibliography is **appendix**: the references also end at the body's
  numbering continued ("7 Contributions" after a body numbered 1–6) and at the top of the first
  page with none of a bibliography page's marks (year, arXiv id, "et al.", venue, link), such as
  an unheaded contributor list or a figure-only page.
* A cut whose page holds only running headers/footers above it moves to the top of the page.

A section may begin mid-page; each section keeps its page range (an appendix found both before
and after the references spans both), and counts are per section, so a term that occurs only
inside cited titles shows up as references-only. Every step is one pass over the text: one
regex scan picks the lines that may be headings, and only those are examined in Python.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate

from ingest.common.document import Document

SECTIONS: tuple[str, ...] = ("body", "appendix", "references")

MAX_HEADING_CHARS = 90
MAX_HEADING_WORDS = 14
#: Share of the document (by characters) before which no references heading is accepted.
REF_MIN_FRACTION = 0.2
#: With no references heading, an appendix is looked for only in the second half.
APPENDIX_NO_REFS_FRACTION = 0.5
#: A lettered section "A …" must hold this much text (lines, non-blank characters) to count.
MIN_SECTION_LINES, MIN_SECTION_CHARS = 2, 80
#: A table-of-contents page: this many entries ending in a page number, and this share of its lines.
TOC_MIN_ENTRIES, TOC_MIN_SHARE = 5, 0.4
#: A line at the top or bottom of at least this share of pages (digits ignored) is a running header/footer.
FURNITURE_SHARE = 0.3

_REF_WORDS = r"references|bibliography|literature cited|works cited"
_NUM = r"^(?:\d+(?:\.\d+)*\.?\s+|[IVX]+\.\s+)?"
_REF_HEAD = re.compile(_NUM + rf"({_REF_WORDS})\s*:?\s*$", re.I)
#: Singular "Reference" is also a figure label ("Reference Model"); used only when no plural heading exists.
_REF_HEAD_SINGULAR = re.compile(_NUM + r"reference\s*:?\s*$", re.I)
#: Lines that may be a heading, found by one C-level scan so that prose lines cost nothing in Python:
#: a label (number, or capital letter without a comma in the line) alone or before a capitalised
#: title, an appendix, references or contents word.
#: The pattern starts with a literal newline so the scan jumps from line to line (the first line is
#: matched with a newline put in front).
_CANDIDATE = re.compile(
    r"\n[ \t#]*(?:"
    r"\d{1,2}(?:\.\d+)*\.?(?:[ \t]+[A-Z][^\n]*|[ \t]*)"
    r"|[A-Z](?:\.\d+)*\.?(?:[ \t]+[A-Z][^,\n]*|[ \t]*)"
    rf"|(?:[IVX]+\.[ \t]+)?(?i:{_REF_WORDS}|reference)[^\n]*"
    r"|(?i:appendi|supplementary|table of contents|contents[ \t]*$)[^\n]*"
    r")$",
    re.M,
)
_APP_WORD = re.compile(
    r"^(?:appendix|appendices|supplementary\s+(?:materials?|information))"
    r"(?:\s+(?P<label>[A-Z](?:\.\d+)*|\d+(?:\.\d+)*)(?!\w))?(?P<sep>\s*[.:\u2013\u2014-])?\s*(?P<title>.*)$",
    re.I,
)
_CONTRIB = re.compile(r"^(contribut|acknowledg|authors?\b|author (list|contributions))", re.I)
_LETTER = re.compile(r"^(?P<letter>[A-Z])(?P<sub>(?:\.\d+)*)\.?\s+(?P<title>\S.*)$")
_NUMBER = re.compile(r"^(?P<num>\d{1,2})(?P<sub>(?:\.\d+)*)\.?\s+(?P<title>\S.*)$")
_LABEL_ONLY = re.compile(r"^(?:\d{1,2}(?:\.\d+)*|[A-Z](?:\.\d+)*)\.?$")
_INITIALS = re.compile(r"(?:^|\s)[A-Z]\.(?:\s|$)")
_SENTENCE_BREAK = re.compile(r"[a-z]{2}\.\s+[A-Z]")
#: A heading does not end in one of these; a line of wrapped prose often does.
_ENDS_WITH_FUNCTION_WORD = re.compile(
    r"\s(?:a|an|the|of|in|on|at|to|for|from|by|with|and|or|as|than|that|which|we|our|is|are|be|this|these)$"
)
_DIGIT = re.compile(r"\d")
_NUMERIC = re.compile(r"^[\d.,%±+\-–()]+$")
_TOC_ENTRY = re.compile(r"(?:[A-Z]|\d{1,2}|[IVX]+)(?:\.\d+)*\.?\s+\S.*\s\d{1,4}$")
_TOC_HEAD = re.compile(r"^(table of )?contents$", re.I)
_ENDS_WITH_PAGE_NUMBER = re.compile(r"\S[ \t.]+\d{1,4}[ \t]*$", re.M)
_NONBLANK_LINE = re.compile(r"^[ \t]*\S", re.M)
#: What every page of a bibliography holds: a year, an arXiv id, "et al.", a venue or a link.
_BIB_MARK = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b|arXiv|et al\.|Proceedings|doi\.org|https?://")


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
class _Heading:
    pos: int  # offset of the line start in the joined document text
    end: int  # offset of the (last) heading line's end
    kind: str  # "letter" | "number" | "appendix"
    key: str  # the letter, or the number as text
    sub: bool  # "A.1" / "2.3" rather than top level
    title: str
    text: str


@dataclass
class _Layout:
    """The joined text, where each page starts, and the page-level facts the rules need."""

    text: str
    starts: list[int]
    furniture: set[str]
    toc: set[int]

    def page_of(self, pos: int) -> int:
        return bisect_right(self.starts, pos) - 1

    def frac(self, pos: int) -> float:
        return pos / (len(self.text) or 1)


def _clean(line: str) -> str:
    return line.strip().lstrip("#").strip()


def _norm(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.lower().split()))


def _edge_lines(lines: Iterable[str], n: int = 3) -> list[str]:
    """The first n non-blank lines that are not sentences (a running header/footer has no final '.')."""
    out: list[str] = []
    for x in lines:
        t = x.strip()
        if t and not t.endswith(".") and len(t) <= MAX_HEADING_CHARS:
            out.append(t)
            if len(out) == n:
                break
    return out


def _furniture(doc: Document) -> set[str]:
    """Normalised lines repeated at the top or bottom of many pages: running headers, footers, page numbers."""
    if len(doc.pages) < 4:
        return set()
    per_line: Counter[str] = Counter()
    for page in doc.pages:
        lines = page.text.split("\n")
        edge = _edge_lines(lines) + _edge_lines(reversed(lines))
        per_line.update({_norm(t) for t in edge})
    need = max(3, FURNITURE_SHARE * len(doc.pages))
    return {norm for norm, n in per_line.items() if n >= need}


def _is_toc_entry(line: str) -> bool:
    """'2.1 Data 7' or 'A Training . . . . 7': a labelled title (or dot leaders), then a page number."""
    return ". . ." in line or "...." in line or bool(_TOC_ENTRY.match(line))


def _toc_pages(doc: Document, lay: _Layout, candidates: list[tuple[int, int, str]]) -> set[int]:
    """Pages that list headings with page numbers (a table of contents): their headings start nothing.

    A page titled "Contents" with three lines ending in a page number is one; so is any page where
    labelled entries ("2.1 Data 7", "A Prompts . . . 30") are five or more and 40% of the lines.
    Only labelled lines can become headings, so elsewhere only they are counted (one cheap pass).
    """
    entries: Counter[int] = Counter()
    titled = set()
    for pos, _, text in candidates:
        if text[-1:].isdigit() and len(text) <= 2 * MAX_HEADING_CHARS and _is_toc_entry(text):
            entries[lay.page_of(pos)] += 1
        elif _TOC_HEAD.match(text):
            titled.add(lay.page_of(pos))
    out = {p for p in titled if len(_ENDS_WITH_PAGE_NUMBER.findall(doc.pages[p].text)) >= 3}
    for p, n in entries.items():
        if p not in out and n >= TOC_MIN_ENTRIES and n >= TOC_MIN_SHARE * len(_NONBLANK_LINE.findall(doc.pages[p].text)):
            out.add(p)
    return out


def _is_title(title: str, allow_comma: bool = True) -> bool:
    """A heading's phrase: starts with a capital, short, not a sentence, not an author list or table row."""
    if not title or not title[0].isupper() or title[-1] in ".,;:" or (not allow_comma and "," in title):
        return False
    words = title.split()
    if len(words) > MAX_HEADING_WORDS or _ENDS_WITH_FUNCTION_WORD.search(title):  # "A Survey of": wrapped prose
        return False
    if words[0] in ("We", "Our", "It", "Here", "There"):  # "Appendix C. We also …": a sentence
        return False
    if "." in title and (_INITIALS.search(title) or _SENTENCE_BREAK.search(title) or ". . ." in title):
        return False
    if not _DIGIT.search(title):
        return True
    numeric = sum(1 for w in words if _NUMERIC.match(w))
    return not (numeric >= 2 and numeric * 3 > len(words))


def _parse_heading(pos: int, end: int, text: str) -> _Heading | None:
    if not text or len(text) > MAX_HEADING_CHARS:
        return None
    m = _APP_WORD.match(text)
    if m and not text.endswith("."):  # "… see Appendix D.2." wrapped onto its own line is a cross-reference
        title = m.group("title")
        # A title needs a label or separator ("Appendix A Title", "Appendix: Title"): "Appendix Table 5
        # lists …" is a sentence wrapped onto a line start.
        if not title or ((m.group("label") or m.group("sep")) and _is_title(title)):
            return _Heading(pos, end, "appendix", "", False, title, text)
        return None
    m = _LETTER.match(text)
    if m and _is_title(m.group("title"), allow_comma=False):
        return _Heading(pos, end, "letter", m.group("letter"), bool(m.group("sub")), m.group("title"), text)
    m = _NUMBER.match(text)
    if m and _is_title(m.group("title")):
        return _Heading(pos, end, "number", m.group("num"), bool(m.group("sub")), m.group("title"), text)
    return None


def _next_line(text: str, end: int, limit: int) -> tuple[int, str]:
    """(end, cleaned text) of the next non-blank line after the line ending at `end`, within two lines."""
    for _ in range(3):
        if end >= limit:
            break
        nxt = text.find("\n", end + 1)
        nxt = limit if nxt < 0 or nxt > limit else nxt
        line = _clean(text[end + 1 : nxt])
        if line:
            return nxt, line
        end = nxt
    return end, ""


def _headings(lay: _Layout, candidates: list[tuple[int, int, str]]) -> list[_Heading]:
    """Heading candidates in document order; a label alone on a line takes the next line as its title."""
    out = []
    for pos, end, text in candidates:
        page = lay.page_of(pos)
        if page in lay.toc:
            continue
        if len(text) <= 8 and _LABEL_ONLY.match(text) and _norm(text) not in lay.furniture:
            page_end = lay.starts[page + 1] - 1 if page + 1 < len(lay.starts) else len(lay.text)
            nxt_end, nxt = _next_line(lay.text, end, page_end)
            if nxt and _is_title(nxt):
                text, end = f"{text} {nxt}", nxt_end
        h = _parse_heading(pos, end, text)
        if h is not None:
            out.append(h)
    return out


def _body_chain_end(heads: list[_Heading]) -> tuple[int, int]:
    """(position of the last heading, length) of the longest run of top-level headings numbered 1, 2, 3 …"""
    best_at: dict[int, int] = {}  # number -> length of the longest run ending with that number so far
    best = (0, -1)
    for h in heads:
        if h.kind != "number" or h.sub:
            continue
        n = int(h.key)
        if n == 1:
            length = 1
        elif n - 1 in best_at:
            length = best_at[n - 1] + 1
        else:
            continue
        best_at[n] = max(best_at.get(n, 0), length)
        if length >= best[0]:
            best = (length, h.pos)
    return best[1], best[0]


def _has_content(text: str, a: int, b: int) -> bool:
    """At least MIN_SECTION_LINES non-blank lines and MIN_SECTION_CHARS characters in text[a:b] (bounded look)."""
    window = text[a : min(b, a + 50 * MIN_SECTION_CHARS)]
    return len(_NONBLANK_LINE.findall(window)) >= MIN_SECTION_LINES and len("".join(window.split())) >= MIN_SECTION_CHARS


def _appendix_starts(heads: list[_Heading], text: str) -> list[int]:
    """Positions of headings that open an appendix (before the positional rules)."""
    letters = [h for h in heads if h.kind == "letter"]
    starts = [h.pos for h in heads if h.kind == "appendix"]
    next_top = [len(text)] * (len(letters) + 1)  # start of the next top-level lettered heading after letters[k]
    for k in range(len(letters) - 1, -1, -1):
        next_top[k] = letters[k + 1].pos if k + 1 < len(letters) and not letters[k + 1].sub else next_top[k + 1]
    for k, h in enumerate(letters):
        if h.sub or h.key != "A":
            continue
        if _CONTRIB.match(h.title) and len(h.title.split()) <= 6:  # "A Contributions and Acknowledgments" stands alone
            starts.append(h.pos)
            continue
        nxt = letters[k + 1] if k + 1 < len(letters) else None
        confirmed = nxt is not None and ((nxt.key == "B" and not nxt.sub) or (nxt.key == "A" and nxt.sub))
        if confirmed and _has_content(text, h.end, next_top[k]):
            starts.append(h.pos)
    return sorted(starts)


def _layout(doc: Document) -> tuple[_Layout, list[tuple[int, int, str]]]:
    text = doc.text
    starts = [0, *accumulate(len(p.text) + 1 for p in doc.pages)][:-1] if doc.pages else [0]
    lay = _Layout(text, starts, _furniture(doc), set())
    first_end = text.find("\n")
    first_end = len(text) if first_end < 0 else first_end
    candidates = [(0, first_end, _clean(text[:first_end]))] if _CANDIDATE.match("\n" + text[:first_end]) else []
    candidates += [(m.start() + 1, m.end(), _clean(m.group())) for m in _CANDIDATE.finditer(text)]
    lay.toc = _toc_pages(doc, lay, candidates)
    return lay, candidates


def _heading_at(lay: _Layout, by_pos: dict[int, _Heading], pos: int) -> str:
    """The heading that opens a section at `pos`, or its first non-blank line (a cut at a page top)."""
    if pos in by_pos:
        return by_pos[pos].text
    lines = (_clean(x) for x in lay.text[pos : pos + 2000].split("\n"))
    return next((x for x in lines if x and _norm(x) not in lay.furniture), "")[:MAX_HEADING_CHARS]


def _end_of_bibliography(
    doc: Document, lay: _Layout, heads: list[_Heading], ref_pos: int, chain_len: int, after: int | None
) -> int | None:
    """Where the text after the references starts (the appendix), if earlier than `after`.

    Everything after the bibliography is appendix (codebook): besides an appendix heading, the
    references end at the body's numbering continued ("7 Contributions" after a body numbered 1-6)
    and at the top of the first page with no mark a bibliography page always has (a year, an arXiv
    id, "et al.", a venue, a link), such as an unheaded contributor list or a figure-only page.
    """
    found = [] if after is None else [after]
    if chain_len >= 2:
        nxt = str(chain_len + 1)
        found += [h.pos for h in heads if h.pos > ref_pos and h.kind == "number" and not h.sub and h.key == nxt][:1]
    for p in range(lay.page_of(ref_pos) + 1, len(doc.pages)):
        body = "\n".join(x for x in doc.pages[p].text.split("\n") if _norm(x.strip()) not in lay.furniture)
        if not _BIB_MARK.search(body):
            found.append(lay.starts[p])
            break
    return min(found, default=None)


def find_boundaries(doc: Document) -> list[tuple[int, int, str, str]]:
    """Section cuts after the body: (page index, offset, section, heading line), in document order."""
    if not doc.pages:
        return []
    lay, candidates = _layout(doc)
    ref = None
    for rx in (_REF_HEAD, _REF_HEAD_SINGULAR):
        ref = next(
            (
                (pos, text)
                for pos, _, text in candidates
                if lay.frac(pos) >= REF_MIN_FRACTION and rx.match(text) and lay.page_of(pos) not in lay.toc
            ),
            None,
        )
        if ref is not None:
            break
    heads = _headings(lay, candidates)
    chain_end, chain_len = _body_chain_end([h for h in heads if ref is None or h.pos < ref[0]])
    by_pos = {h.pos: h for h in heads}
    before: int | None = None
    after: int | None = None
    for pos in _appendix_starts(heads, lay.text):
        if ref is not None and pos > ref[0]:
            after = pos if after is None else after
        elif (
            before is None
            and pos > chain_end
            and (by_pos[pos].kind == "appendix" or chain_len >= 2)
            and lay.frac(pos) >= (REF_MIN_FRACTION if ref is not None else APPENDIX_NO_REFS_FRACTION)
        ):
            before = pos
    if ref is not None:
        after = _end_of_bibliography(doc, lay, heads, ref[0], chain_len, after)
    cuts = [(before, "appendix", by_pos[before].text if before is not None else "")]
    cuts += [(ref[0] if ref else None, "references", ref[1] if ref else "")]
    cuts += [(after, "appendix", _heading_at(lay, by_pos, after) if after is not None else "")]
    out = []
    for pos, name, heading in cuts:
        if pos is None:
            continue
        page = lay.page_of(pos)
        off = pos - lay.starts[page]
        above = doc.pages[page].text[:off].split("\n")
        if all(not x.strip() or _norm(x.strip()) in lay.furniture for x in above):
            off = 0  # only a running header above: the section starts with the page
        out.append((page, off, name, heading))
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
