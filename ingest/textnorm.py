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
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Literal

# Hanzi (incl. extension A and compatibility ideographs), kana, hangul syllables.
_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_WORD = re.compile(f"[{_CJK_CLASS}]|[^\\s{_CJK_CLASS}\u3000-\u303f\uff00-\uff0f\uff1a-\uff20]+")

#: pdfium marks a hyphen it removed at a line end with U+FFFE (and sometimes U+0002).
SOFT_BREAK = "\ufffe"
_SOFT_HYPHEN = re.compile(r"(\S*?)([\ufffe\u0002\u00ad])(\S*)")
# A hyphen at a line end followed by the rest of the word on the next line.
_LINE_HYPHEN = re.compile(r"([A-Za-z]+)-[ \t]*\r?\n[ \t]*([a-z]+)")

_CONTROL = re.compile(r"[\u0000-\u0008\u000b\u000e-\u001f\u007f\u200b\u200c\u200d\u2060\ufeff\ufffd\uffff]")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_WS = re.compile(r"\s+")
_ALPHA = re.compile(r"[A-Za-z]+")


WordRule = Literal["whitespace", "cjk"]


def word_rule(text: str) -> WordRule:
    """The document's word rule: "cjk" when CJK characters outnumber whitespace tokens."""
    n_cjk = len(_CJK_CHAR.findall(text))
    return "cjk" if n_cjk and n_cjk > len(text.split()) else "whitespace"


def count_words(text: str, rule: WordRule = "whitespace") -> int:
    """Number of words under the documented rule (wc -w; or one per CJK character)."""
    if rule == "whitespace" or not _CJK_CHAR.search(text):
        return len(text.split())
    return len(_WORD.findall(text))


def fold_ws(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces, as the reference counts do."""
    return _WS.sub(" ", text).strip()


def normalize(text: str) -> str:
    """NFKC (ligatures ﬁ→fi, full-width forms, compatibility characters) and clean controls.

    Soft-hyphen markers are kept here; `dehyphenate` decides on them with the whole
    document's vocabulary in view.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFKC", text)
    # NFKC leaves these; they are typographic variants of ASCII punctuation in PDFs.
    text = text.translate(_PUNCT)
    text = _CONTROL.sub("", text.replace("\u0002", SOFT_BREAK))
    return _SPACES.sub(" ", text)


_PUNCT = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u00ad": SOFT_BREAK})


def vocabulary(texts: list[str]) -> Counter:
    """Lower-case alphabetic word counts, used to decide line-end hyphens."""
    c: Counter = Counter()
    for t in texts:
        c.update(w.lower() for w in _ALPHA.findall(t))
    return c


def _join_or_keep(left: str, right: str, vocab: Counter, hyphenated: set[str]) -> str:
    """Decide whether `left`-`right` split at a line end is one word or a hyphenated compound."""
    l_alpha = _ALPHA.findall(left)
    r_alpha = _ALPHA.findall(right)
    if not l_alpha or not r_alpha:
        return f"{left}-{right}"
    a, b = l_alpha[-1], r_alpha[0]
    # "DeepSeek-V3", "MMLU-Pro", "Chain-of-Thought": a capital after the break is a compound.
    if right[:1].isupper() or right[:1].isdigit() or left[-1:].isdigit():
        return f"{left}-{right}"
    joined = (a + b).lower()
    if f"{a}-{b}".lower() in hyphenated and vocab.get(joined, 0) == 0:
        return f"{left}-{right}"
    return left + right


def dehyphenate(pages: list[str]) -> list[str]:
    """Repair words split across lines by hyphenation, for all pages of one document.

    "rein-\\nforcement" → "reinforcement", but "trajectory-\\nlevel" stays "trajectory-level"
    when the document elsewhere writes "trajectory-level" and never "trajectorylevel".
    """
    vocab = vocabulary(pages)
    hyphenated = {m.group(0).lower() for t in pages for m in re.finditer(r"[A-Za-z]+-[A-Za-z]+", t)}

    def soft(m: re.Match) -> str:
        left, right = m.group(1), m.group(3)
        if not left or not right:
            return left + right
        return _join_or_keep(left, right, vocab, hyphenated)

    def hard(m: re.Match) -> str:
        return _join_or_keep(m.group(1), m.group(2), vocab, hyphenated) + "\n"

    out = []
    for t in pages:
        t = _SOFT_HYPHEN.sub(soft, t) if SOFT_BREAK in t else t
        t = _LINE_HYPHEN.sub(hard, t)
        out.append(t)
    return out
