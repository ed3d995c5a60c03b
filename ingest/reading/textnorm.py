"""Text normalisation and the word rule shared by every stage.

Counting rules live here so that extraction, keyword counting and evidence all agree on
what a "word" is:

* Latin-script text: a word is a maximal run of non-whitespace characters — the rule of
  `wc -w`, which is what the reference counts (`pdftotext | wc -w`) use.
* CJK documents (Chinese hanzi, Japanese kana, Korean hangul): every ideograph/syllable
  counts as one word, because these scripts do not separate words with spaces and a
  segmenter would make counts depend on its dictionary. Runs of Latin letters/digits inside
  CJK text still count as one word each ("Qwen3" in "Qwen3模型" is one word, "模型" two).
  CJK punctuation is not a word. Densities for Chinese documents are "per 1,000 characters".
* The rule is chosen once per document (`word_rule`): a document is CJK when its CJK
  characters outnumber its whitespace-separated tokens. An English report that quotes a few
  Chinese prompts in an appendix keeps the `wc -w` rule, so it stays comparable with the
  reference counts.

Every function here runs in linear time and bounded extra memory on hostile text (30,000-letter
"words", millions of tokens): patterns start only at word starts, and counting and folding
work through the text in slices instead of building a list of every token.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Literal

# Hanzi (incl. extension A and compatibility ideographs), kana, hangul syllables.
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_WORD = re.compile(f"[{_CJK_CLASS}]|[^\\s{_CJK_CLASS}\u3000-\u303f\uff00-\uff0f\uff1a-\uff20]+")

#: pdfium marks a hyphen it removed at a line end with U+FFFE (and sometimes U+0002).
SOFT_BREAK = "\ufffe"
_MARKERS = "\ufffe\u0002\u00ad"
# A run of non-space characters that contains a soft-break marker; it starts only at a token start
# (after whitespace or at the text start), so a 30,000-letter word is scanned once, not once per letter.
_SOFT_TOKEN = re.compile(rf"(?<!\S)[^\s{_MARKERS}]*[{_MARKERS}]\S*")
_MARKER_SPLIT = re.compile(f"[{_MARKERS}]")
# A hyphen at a line end followed by the rest of the word on the next line (again only from a word start).
_LINE_HYPHEN_AT = re.compile(r"([A-Za-z]+)-[ \t]*\r?\n[ \t]*([a-z]+)")
_LINE_HYPHEN = re.compile(r"(?<![A-Za-z])([A-Za-z]+)-[ \t]*\r?\n[ \t]*([a-z]+)")
_COMPOUND = re.compile(r"(?<![A-Za-z])[A-Za-z]+-[A-Za-z]+")
_SITE = re.compile(r"-[ \t]*\r?\n[ \t]*[a-z]")  # what every `_LINE_HYPHEN` match holds after its first letters
_is_letter = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ").__contains__

#: Invisible format characters that split or disguise a word without showing anything: soft hyphen
#: (handled apart in PDFs), zero-width space/joiners, bidi marks, embeddings, overrides and isolates,
#: word joiner and invisible operators, deprecated format controls, BOM, interlinear annotation,
#: variation selectors (incl. Mongolian and the supplement), combining grapheme joiner, musical
#: format controls and the tag characters. Removing them joins the word they were hiding in.
_INVISIBLE_CLASS = (
    "\u034f\u061c\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufe00-\ufe0f\ufeff\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
# C0/C1-style controls (tab, newline and form feed are whitespace and stay), replacement/non-characters.
_CONTROL_CLASS = "\u0000-\u0001\u0003-\u0008\u000b\u000e-\u001f\u007f\ufffd\uffff"
_DROP = re.compile(f"[{_INVISIBLE_CLASS}{_CONTROL_CLASS}]")
_DROP_WITH_SOFT_HYPHEN = re.compile(f"[{_INVISIBLE_CLASS}{_CONTROL_CLASS}\u00ad\u0002]")
_SPACE_CLASS = r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]"
_SPACES = re.compile(f"{_SPACE_CLASS}+")
# The runs `_SPACES` replaces by one space, less the single spaces (replacing those changes nothing
# and made every word of a page a substitution).
_SPACE_RUNS = re.compile(f"(?! (?!{_SPACE_CLASS})){_SPACE_CLASS}+")
_WS = re.compile(r"\s+")
_ALPHA = re.compile(r"[A-Za-z]+")

#: Texts are counted and folded in slices of about this many characters (memory stays bounded).
_SLICE = 1 << 20


WordRule = Literal["whitespace", "cjk"]


def _slices(text: str, size: int = _SLICE) -> Iterator[str]:
    """The text in consecutive pieces of about `size` characters, each cut just before whitespace.

    A token is never split between two pieces, so counting or folding piece by piece gives the
    same result as on the whole text, without a list of all its tokens in memory.
    """
    n, pos = len(text), 0
    while pos < n:
        end = pos + size
        if end >= n:
            yield text[pos:]
            return
        m = _WS.search(text, end)
        end = m.start() if m else n
        yield text[pos:end]
        pos = end


def word_rule(text: str) -> WordRule:
    """The document's word rule: "cjk" when CJK characters outnumber whitespace tokens."""
    n_cjk = sum(len(_CJK_CHAR.findall(s)) for s in _slices(text)) if _CJK_CHAR.search(text) else 0
    return "cjk" if n_cjk and n_cjk > count_words(text) else "whitespace"


def count_words(text: str, rule: WordRule = "whitespace") -> int:
    """Number of words under the documented rule (wc -w; or one per CJK character)."""
    if rule == "whitespace" or not _CJK_CHAR.search(text):
        return sum(len(s.split()) for s in _slices(text))
    return sum(len(_WORD.findall(s)) for s in _slices(text))


def fold_ws(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces, as the reference counts do."""
    if len(text) <= 1 << 16:  # a page or a sentence: split/join (same whitespace as `\s`), faster than a sub
        return " ".join(text.split())
    if len(text) <= _SLICE:
        return _WS.sub(" ", text).strip()
    return " ".join(p for p in (_WS.sub(" ", s).strip() for s in _slices(text)) if p)


def normalize(text: str, soft_hyphens: Literal["mark", "drop"] = "mark") -> str:
    """NFKC (ligatures ﬁ→fi, full-width forms, compatibility characters), NFC accents, no hidden characters.

    Invisible format characters (bidi marks, tag characters, variation selectors, zero-width
    characters) and controls are removed *before* NFKC, so a combining accent they separated
    from its letter is composed with it. `soft_hyphens="mark"` (PDFs) keeps soft-hyphen
    markers for `dehyphenate`, which decides on them with the whole document's vocabulary in
    view; `"drop"` (Markdown/HTML, where U+00AD is only a hint where a line may break) removes
    them, which joins the word.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if soft_hyphens == "mark":
        text = _DROP.sub("", text.replace("\u0002", SOFT_BREAK).replace("\u00ad", SOFT_BREAK))
    else:
        text = _DROP_WITH_SOFT_HYPHEN.sub("", text)
    text = unicodedata.normalize("NFKC", text)  # canonical composition included: the result is also NFC
    if text.isascii():  # (nothing below but runs of spaces and tabs can apply)
        return _SPACE_RUNS.sub(" ", text) if "  " in text or "\t" in text else text
    # NFKC leaves these; they are typographic variants of ASCII punctuation in PDFs.
    for dash in _DASHES:
        if dash in text:
            text = text.replace(dash, "-")
    return _SPACE_RUNS.sub(" ", text)


_DASHES = ("\u2010", "\u2011", "\u2212")


def vocabulary(texts: list[str]) -> Counter:
    """Lower-case alphabetic word counts, used to decide line-end hyphens."""
    c: Counter = Counter()
    for t in texts:
        for s in _slices(t):
            c.update(map(str.lower, _ALPHA.findall(s)))
    return c


class _DocWords:
    """A document's vocabulary (`vocabulary`) and its hyphenated compounds (lower case), each made
    on first use: most hyphens are decided before either is needed."""

    def __init__(self, pages: list[str]) -> None:
        self.pages = pages
        self._vocab: Counter | None = None
        self._compounds: set[str] | None = None

    @property
    def vocab(self) -> Counter:
        if self._vocab is None:
            self._vocab = vocabulary(self.pages)
        return self._vocab

    @property
    def compounds(self) -> set[str]:
        if self._compounds is None:
            self._compounds = {m.group(0).lower() for t in self.pages for m in _COMPOUND.finditer(t)}
        return self._compounds


def _keep_hyphen(left: str, right: str, words: _DocWords) -> bool:
    """Whether `left`-`right`, split at a line end, is a hyphenated compound rather than one word."""
    # "DeepSeek-V3", "MMLU-Pro", "Chain-of-Thought": a capital after the break is a compound.
    if right[:1].isupper() or right[:1].isdigit() or left[-1:].isdigit():
        return True
    a = left if left.isascii() and left.isalpha() else _last_alpha(left)
    m_right = _ALPHA.match(right) or _ALPHA.search(right)
    if not a or not m_right:
        return True
    b = m_right.group(0)
    return f"{a}-{b}".lower() in words.compounds and words.vocab.get((a + b).lower(), 0) == 0


def _last_alpha(s: str) -> str:
    """The last run of ASCII letters in `s` ("" if none): the first run of the reversed text, found in C."""
    m = _ALPHA.search(s[::-1])
    return m.group(0)[::-1] if m else ""


def _sub_line_hyphens(t: str, repl: Callable[[re.Match], str]) -> str:
    """`_LINE_HYPHEN_AT.sub(repl, t)` in linear time.

    A leftmost match starts either where the previous one ended (its second part may stop
    inside a letter run, before a capital) or at the start of a letter run: the anchored
    pattern tries the first, the pattern with a look-behind finds the second without
    restarting inside every letter of a long word. Every match holds a "site" (a letter, "-",
    blanks, a line break, blanks, a small letter), found by a fast search for "-"; the
    look-behind pattern is searched from the last space before the next site only, so a page
    is not tried at every word start (the match found is the same: no other site lies between).
    """
    out, pos, n = [], 0, len(t)
    while pos <= n:
        site = _SITE.search(t, pos + 1)
        while site is not None and not _is_letter(t[site.start() - 1]):
            site = _SITE.search(t, site.start() + 1)
        if site is None:
            break
        h = site.start()
        m = _LINE_HYPHEN_AT.match(t, pos) or _LINE_HYPHEN.search(t, max(pos, t.rfind(" ", pos, h) + 1, t.rfind("\n", pos, h) + 1))
        if m is None:
            break
        out.append(t[pos : m.start()])
        out.append(repl(m))
        pos = m.end()
    if not out:
        return t
    out.append(t[pos:])
    return "".join(out)


def dehyphenate(pages: list[str]) -> list[str]:
    """Repair words split across lines by hyphenation, for all pages of one document.

    "rein-\\nforcement" → "reinforcement", but "trajectory-\\nlevel" stays "trajectory-level"
    when the document elsewhere writes "trajectory-level" and never "trajectorylevel". Each
    soft-hyphen marker is decided on the text right around it (its neighbours up to the next
    marker or space), so a token with several markers loses all of them.
    """
    words = _DocWords(pages)

    def soft(m: re.Match) -> str:
        pieces = _MARKER_SPLIT.split(m.group(0))
        out = [pieces[0]]
        for left, right in itertools.pairwise(pieces):
            if left and right and _keep_hyphen(left, right, words):
                out.append("-")
            out.append(right)
        return "".join(out)

    def hard(m: re.Match) -> str:
        left, right = m.group(1), m.group(2)
        return (f"{left}-{right}" if _keep_hyphen(left, right, words) else left + right) + "\n"

    out = []
    for t in pages:
        if SOFT_BREAK in t or "\u00ad" in t or "\u0002" in t:
            t = _SOFT_TOKEN.sub(soft, t)
        out.append(_sub_line_hyphens(t, hard))
    return out
