"""Stage 6 — evidence: sentences of body and appendix, each with its page, page label and section.

Why a custom splitter: PDF text keeps its line breaks, equations sit on lines of their own,
and technical prose is full of full stops that end nothing ("(Shao et al., 2024)", "e.g.",
"Fig. 3", "0.5", "A. Vaswani"). The rules, in order:

1. Lines are grouped into prose blocks; a blank line, a bullet, a heading-like short line or
   a line that is mostly symbols (an equation, a table row, axis ticks) ends a block, and
   non-prose lines are dropped.
2. Inside a block a sentence ends at . ! ? (or 。！？) followed by space and a capital, digit,
   quote or bracket — unless inside parentheses/brackets, after a known abbreviation, or
   after a single-letter initial.
3. Sentences never cross a page (each must be findable on its stated page); very long runs
   are cut at a word boundary so a quote stays readable. References are never evidence.

Every sentence is a verbatim substring of its page after whitespace folding, which is what
`quote_on_page` checks (the eval checks every quote this way).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ingest.reading.sections import Segment
from ingest.reading.textnorm import fold_ws as fold  # quotes are compared with pages with whitespace folded

#: Sections whose sentences may be evidence. References never are.
EVIDENCE_SECTIONS: tuple[str, ...] = ("body", "appendix")
MAX_SENTENCE_CHARS = 600
MIN_SENTENCE_WORDS = 4

_ABBREV = re.compile(
    r"(?:\bet al|\be\.g|\bi\.e|\betc|\bcf|\bvs|\bw\.r\.t|\bapprox|\bresp|\bFigs?|\bEqs?|\bSecs?|\bTabs?|\bApp|\bAppx"
    r"|\bRefs?|\bNo|\bNos|\bVol|\bpp|\bCh|\bDr|\bMr|\bMs|\bProf|\bInc|\bLtd|\bJr|\bSt|\bal|\bviz|\bresp"
    r"|(?<![\w.])[A-Z])$"
)
#: The literal abbreviations of `_ABBREV` (each after a word boundary), by their last character, for
#: `_abbreviation`, which answers as `_ABBREV.search` does without a regex search per full stop.
_ABBREVS = (
    "et al", "e.g", "i.e", "etc", "cf", "vs", "w.r.t", "approx", "resp", "Fig", "Figs", "Eq", "Eqs", "Sec", "Secs", "Tab",
    "Tabs", "App", "Appx", "Ref", "Refs", "No", "Nos", "Vol", "pp", "Ch", "Dr", "Mr", "Ms", "Prof", "Inc", "Ltd", "Jr", "St",
    "al", "viz",
)  # fmt: skip
_ABBREV_BY_LAST: dict[str, tuple[str, ...]] = {}
for _a in _ABBREVS:
    _ABBREV_BY_LAST[_a[-1]] = (*_ABBREV_BY_LAST.get(_a[-1], ()), _a)
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[A-Z0-9•])|[。！？]+")
_CJK = re.compile("[\u3400-\u9fff]")
_BULLET = re.compile(r"^\s*([•●▪◦·\-–*]|\(?\d{1,2}[.)]|\([a-z]\))\s+")
#: Numbered section headings ("4.2. Unsuccessful Attempts"); table-of-contents lines end in a page number.
_HEADING = re.compile(r"^\s*(\d{1,2}(\.\d{1,2}){0,3}\.?|[A-H](\.\d{1,2}){1,3}\.?)\s+([A-Z][^.]{2,80})$")
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}|[\u3400-\u9fff]")
#: Dot leaders of a contents line: four or more dots, spaced or not, up to an optional page number.
_LEADER = re.compile(r"(\.\s?){4,}\s*\d*\s*$")


@dataclass(frozen=True)
class Sentence:
    """One sentence of evidence (whitespace folded), and where it is."""

    text: str
    page: int
    page_label: str
    section: str
    index: int  # position in the document's sentence list
    heading: str = ""  # nearest numbered heading above it (blog: its section heading)
    #: the top-level numbered heading above it ("Preliminaries" above "2.1 PPO"): a subsection's role is its chapter's
    chapter: str = ""


def quote_on_page(quote: str, page_text: str) -> bool:
    """True when the quote occurs verbatim on the page, up to whitespace."""
    q = fold(quote)
    return bool(q) and q in fold(page_text)


#: Every byte but the ASCII letters: deleting them from an ASCII line leaves its letters.
_NOT_LETTERS = bytes(b for b in range(256) if not chr(b).isalpha() or b > 127)


def _is_prose(line: str) -> bool:
    """A line of running text, not an equation, a table row, a tick label or a short heading."""
    s = line.strip()
    # A table-of-contents line ("5.3 Reward Model . . . . 29"); a leader has at least four dots.
    if not s or (s.count(".") >= 4 and _LEADER.search(s)):
        return False
    words = _words(s, 4)
    if not words:
        return False
    ascii_ = s.isascii()
    letters = len(s.encode("ascii").translate(None, _NOT_LETTERS)) if ascii_ else sum(map(str.isalpha, s))
    if letters / max(1, len(s) - s.count(" ")) < 0.55:
        return False
    return words >= 4 or (words >= 2 and s[-1] in ".!?:;,") or (not ascii_ and len(_CJK.findall(s)) >= 6)


def _words(text: str, cap: int) -> int:
    """`len(_WORD.findall(text))`, counted no further than `cap` (the rules only ask "at least N")."""
    n = 0
    for _ in _WORD.finditer(text):
        n += 1
        if n >= cap:
            break
    return n


def heading_of(line: str) -> str | None:
    """The title of a numbered heading line, else None (contents lines ending in a page number are not headings)."""
    m = _HEADING.match(line)
    if not m or re.search(r"(\.\s*){3,}|\s\d+$", line) or len(m.group(4).split()) > 12:
        return None
    return m.group(4).strip()


def prose_blocks(text: str, heading: str = "") -> list[tuple[str, str]]:
    """(heading, block) for each run of prose lines; other lines end a block and are dropped."""
    return [(h, b) for h, _, b in chaptered_blocks(text, heading)]


def chaptered_blocks(text: str, heading: str = "", chapter: str = "") -> list[tuple[str, str, str]]:
    """(heading, chapter, block) for each run of prose lines: `prose_blocks` plus the top-level numbered
    heading above each block (a heading numbered "2" or "B", not "2.1")."""
    blocks: list[tuple[str, str, list[str]]] = [(heading, chapter, [])]
    for line in text.split("\n"):
        h = heading_of(line)
        if h:
            heading = h
            if "." not in _HEADING.match(line).group(1).rstrip("."):  # type: ignore[union-attr]
                chapter = h
            blocks.append((heading, chapter, []))
            continue
        if not _is_prose(line):
            if blocks[-1][2]:
                blocks.append((heading, chapter, []))
            continue
        if _BULLET.match(line) and blocks[-1][2]:
            blocks.append((heading, chapter, []))
        blocks[-1][2].append(line.strip())
    return [(h, c, " ".join(b)) for h, c, b in blocks if b]


_BRACKET = re.compile(r"[()\[\]]")


def _depth_step(text: str, pos: int, end: int, depth: int) -> int:
    """Bracket nesting depth (parentheses and square brackets) after reading text[pos:end] from `depth`
    (only the brackets are visited)."""
    for m in _BRACKET.finditer(text, pos, end):
        if m.group() in "([":
            depth += 1
        elif depth > 0:
            depth -= 1
    return depth


def _is_word_char(ch: str) -> bool:
    """`\\w` of a str pattern: a letter, digit or other numeric character, or "_"."""
    return ch.isalnum() or ch == "_"


def _abbreviation(block: str, lo: int, stop: int) -> bool:
    """Whether `_ABBREV.search(block, lo, stop)` matches: an abbreviation (after a word boundary) or
    a single capital (not after a word character or ".") ends at `stop` and starts at `lo` or later."""
    if stop <= lo:
        return False
    last = block[stop - 1]
    if last == "\n":  # `$` may also match before a final line break: ask the regex itself
        return _ABBREV.search(block, lo, stop) is not None
    if "A" <= last <= "Z" and (stop - 1 == 0 or not (_is_word_char(block[stop - 2]) or block[stop - 2] == ".")):
        return True
    for a in _ABBREV_BY_LAST.get(last, ()):
        p = stop - len(a)
        if p >= lo and block.startswith(a, p) and (p == 0 or not _is_word_char(block[p - 1])):
            return True
    return False


#: Characters before a full stop in which an abbreviation must lie (the longest is "approx"); the
#: lookbehinds of _ABBREV still see the text before this window.
_ABBREV_REACH = 16


def split_sentences(block: str) -> list[str]:
    """Sentences of one prose block (see the module docstring for the rules).

    Linear in the block: the abbreviation test reads only the few characters before a full stop,
    and the bracket depth is carried forward, so a block of thousands of rejected boundaries
    ("(a. b. c. …", "e.g. e.g. …") is not re-read from its start at each of them.
    """
    out, start = [], 0
    depth, scanned = 0, 0
    for m in _BOUNDARY.finditer(block):
        end = m.end()
        stop = m.start()
        if block[stop] == "." and _abbreviation(block, max(start, stop - _ABBREV_REACH), stop):
            continue
        if block[stop] in ".!?":
            depth, scanned = _depth_step(block, scanned, stop, depth), stop
            if depth > 0:
                continue
        out.append(block[start:end].strip())
        start = scanned = end
        depth = 0
    if block[start:].strip():
        out.append(block[start:].strip())
    return [s for piece in out for s in _cut_long(piece)]


def _cut_long(s: str) -> list[str]:
    """Cut a run longer than MAX_SENTENCE_CHARS at word boundaries (keeps each part verbatim)."""
    if len(s) <= MAX_SENTENCE_CHARS:
        return [s]
    parts, rest = [], s
    while len(rest) > MAX_SENTENCE_CHARS:
        cut = rest.rfind(" ", 0, MAX_SENTENCE_CHARS)
        cut = cut if cut > MAX_SENTENCE_CHARS // 2 else MAX_SENTENCE_CHARS
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    return [*parts, rest] if rest else parts


def sentences(segments: Iterable[Segment]) -> list[Sentence]:
    """Evidence sentences of a document's body and appendix, in reading order."""
    out: list[Sentence] = []
    heading = chapter = ""
    for seg in segments:
        if seg.section not in EVIDENCE_SECTIONS:
            continue
        label = seg.label or str(seg.page)
        if not label.isdigit():  # a blog block: its label is its heading
            heading = chapter = label
        for heading, chapter, block in chaptered_blocks(seg.text, heading, chapter):  # noqa: B020 - they carry on
            for s in split_sentences(block):
                text = fold(s)
                if _words(text, MIN_SENTENCE_WORDS) >= MIN_SENTENCE_WORDS:
                    out.append(Sentence(text, seg.page, label, seg.section, len(out), heading, chapter))
    return out
