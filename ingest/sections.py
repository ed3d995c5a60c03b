"""Stage 4 — sections: split a document into body, appendix and references.

Rules (documented in the README, tested in tests/test_sections.py):

* **references** start at the first line, after the first fifth of the document, that is
  only a references heading ("References", "Bibliography", "Reference", optionally numbered,
  e.g. "7 References" or "## References" in a post).
* **appendix** starts at the first heading line after the references start (or, with no
  references, after the first half of the document) that is "Appendix"/"Appendices"/
  "Supplementary Material", "Appendix A …", or a lettered section "A Title" / "A. Title"
  (short, no comma — author lists in references have commas).
* Everything before the first of the two is **body**. If the appendix comes before the
  references, the references run to the end and the appendix ends where they start.

A section may begin mid-page; each section keeps its page range, and counts are per
section, so a term that occurs only inside cited titles shows up as references-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .extract import Document

SECTIONS: tuple[str, ...] = ("body", "appendix", "references")

_NUM = r"^(?:\d+(?:\.\d+)*\.?\s+|[IVX]+\.\s+)?"
_REF_HEAD = re.compile(_NUM + r"(references|bibliography|literature cited|works cited)\s*:?\s*$", re.I)
#: Singular "Reference" is also a figure label ("Reference Model"); used only when no plural heading exists.
_REF_HEAD_SINGULAR = re.compile(_NUM + r"reference\s*:?\s*$", re.I)
_CONTRIB = re.compile(r"contribution|acknowledg|author", re.I)
_APP_WORD = re.compile(r"^(appendix|appendices|supplementary materials?)(\s+[A-Z](\.\d+)*)?([\s:.\u2013-]+\S.*)?$", re.I)
_LETTERED = re.compile(r"^(?P<letter>[A-H])(\.\d+)*\.?\s+[A-Z][\w-]*(\s+\S+){0,12}$")
MAX_HEADING_CHARS = 90


@dataclass(frozen=True)
class Segment:
    """A run of text from one page that belongs to one section."""

    section: str
    page: int
    label: str
    text: str


@dataclass(frozen=True)
class SectionSpan:
    """Where a section starts and ends (pages, 1-based, inclusive)."""

    section: str
    start_page: int
    end_page: int
    heading: str


def _line_starts(doc: Document) -> list[tuple[int, int, str]]:
    """(page index, char offset, stripped line) for every line of the document."""
    out = []
    for pi, page in enumerate(doc.pages):
        off = 0
        for line in page.text.split("\n"):
            out.append((pi, off, line.strip()))
            off += len(line) + 1
    return out


def _is_heading_line(line: str) -> bool:
    return bool(line) and len(line) <= MAX_HEADING_CHARS and "," not in line and not line.endswith((".", ";", ":"))


def _is_appendix_heading(line: str, later_lines: list[str]) -> bool:
    """'Appendix …' headings, or a lettered 'A Title' heading that a 'B …' heading follows.

    Requiring a later B heading keeps wrapped reference titles ("A survey of …") and
    author initials ("A. Vaswani") from being taken for the appendix.
    """
    if _APP_WORD.match(line) and len(line) <= MAX_HEADING_CHARS:
        return True
    m = _LETTERED.match(line)
    if not (m and m.group("letter") == "A" and _is_heading_line(line) and len(line.split()) >= 2):
        return False
    if _CONTRIB.search(line):  # "A Contributions and Acknowledgments" closes many reports
        return True
    return any(_LETTERED.match(x) and x[0] == "B" and _is_heading_line(x) for x in later_lines)


def find_boundaries(doc: Document) -> dict[str, tuple[int, int, str]]:
    """Start (page index, offset, heading) of references and appendix, where found."""
    lines = _line_starts(doc)
    total = sum(len(p.text) for p in doc.pages) or 1
    lens = [len(p.text) for p in doc.pages]
    before = [sum(lens[:i]) for i in range(len(lens))]

    def frac(pi: int, off: int) -> float:
        return (before[pi] + off) / total

    found: dict[str, tuple[int, int, str]] = {}
    for rx in (_REF_HEAD, _REF_HEAD_SINGULAR):
        for pi, off, line in lines:
            if frac(pi, off) >= 0.2 and rx.match(line.lstrip("#").strip()):
                found["references"] = (pi, off, line)
                break
        if found:
            break
    ref_pos = found.get("references")
    headings = [line.lstrip("#").strip() for _, _, line in lines]
    for i, (pi, off, line) in enumerate(lines):
        after = (pi, off) > (ref_pos[0], ref_pos[1]) if ref_pos else frac(pi, off) >= 0.5
        if after and _is_appendix_heading(headings[i], headings[i + 1 :]):
            found["appendix"] = (pi, off, line)
            break
    if "appendix" not in found and ref_pos:
        # An appendix may sit between body and references ("Appendix" heading only, to stay safe).
        for pi, off, line in lines:
            heading = line.lstrip("#").strip()
            if (
                frac(pi, off) >= 0.5
                and (pi, off) < (ref_pos[0], ref_pos[1])
                and re.match(r"^(appendix|appendices)\b", heading, re.I)
                and len(heading) < 60
                and not heading.endswith(".")
            ):
                found["appendix"] = (pi, off, line)
                break
    return found


def split_sections(doc: Document) -> list[Segment]:
    """Cut the document into per-page segments labelled body / appendix / references."""
    bounds = sorted(((pos[0], pos[1], name) for name, pos in find_boundaries(doc).items()))
    cuts = [(0, 0, "body"), *bounds]
    segments: list[Segment] = []
    for ci, (pi, off, name) in enumerate(cuts):
        end_pi, end_off = (cuts[ci + 1][0], cuts[ci + 1][1]) if ci + 1 < len(cuts) else (len(doc.pages) - 1, None)
        for p in range(pi, end_pi + 1):
            page = doc.pages[p]
            a = off if p == pi else 0
            b = end_off if p == end_pi and end_off is not None else len(page.text)
            if b > a or (a == 0 and b == 0 and p != end_pi):
                segments.append(Segment(name, page.number, page.label, page.text[a:b]))
    return [s for s in segments if s.text.strip() or len(segments) == 1]


def section_spans(segments: list[Segment]) -> list[SectionSpan]:
    """Page range of each section present, in document order."""
    spans: dict[str, SectionSpan] = {}
    for s in segments:
        if s.section not in spans:
            head = s.text.strip().split("\n", 1)[0][:80] if s.section != "body" else ""
            spans[s.section] = SectionSpan(s.section, s.page, s.page, head)
        else:
            old = spans[s.section]
            spans[s.section] = SectionSpan(s.section, old.start_page, s.page, old.heading)
    return list(spans.values())
