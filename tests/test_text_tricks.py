"""Issue 8 §6: invisible-character tricks must not hide a word from the keyword counts, in any format.

Each trick of `tests.pathological.TRICKS` is written into a PDF (through a ToUnicode map, so the
characters really are in the text layer), a Markdown post and an HTML page; the study-term counts
must equal those of a control document where the hidden word is written plainly.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from ingest.analysis.lexicon import load_lexicon
from ingest.pipeline_steps import analyse
from ingest.reading.extract import extract_file
from ingest.reading.markdown import extract_markdown
from ingest.reading.textnorm import fold_ws

from .pathological import TRICKS, tricky_pdf

FILLER = "The reward comes from unit tests that a verifier runs on every answer."


def plain(text: str) -> str:
    """The control: what a reader sees (format characters and marks dropped, compatibility forms folded)."""
    return unicodedata.normalize("NFKC", "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Mn")))


def study_counts(path: Path) -> dict[str, int]:
    res = analyse(extract_file(path), load_lexicon())
    return {c["term"]: c["count"] for c in res.counts if c["section"] == "all" and c["group"] == "study"}


def write(tmp_path: Path, fmt: str, sentence: str, name: str) -> Path:
    if fmt == "pdf":
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(tricky_pdf([sentence, FILLER]))
    elif fmt == "md":
        path = tmp_path / f"{name}.md"
        path.write_text(f"# Post\n\n{sentence}\n\n{FILLER}\n", encoding="utf-8")
    else:
        path = tmp_path / f"{name}.html"
        body = "".join(f"<p>{FILLER} Paragraph {i} says more about it.</p>" for i in range(4))
        path.write_text(
            f"<html><head><title>t</title></head><body><article><h1>Post</h1><p>{sentence}</p>{body}</article></body></html>",
            encoding="utf-8",
        )
    return path


@pytest.mark.parametrize("fmt", ["pdf", "md", "html"])
@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_hidden_word_is_counted(tmp_path: Path, fmt: str, trick: str) -> None:
    hidden, word = TRICKS[trick]
    got = study_counts(write(tmp_path, fmt, f"We train an {hidden} model with a tool.", "trick"))
    want = study_counts(write(tmp_path, fmt, f"We train an {plain(hidden)} model with a tool.", "control"))
    assert got[word] >= 1 and got == want, (trick, fmt, got, want)


def test_html_entities_for_soft_hyphen_and_bidi_marks_do_not_hide_words(tmp_path: Path) -> None:
    got = study_counts(write(tmp_path, "html", "An agen&shy;tic model, an ag&#x200E;ent and a to&#8203;ol.", "ent"))
    assert (got["agentic"], got["agent"], got["tool"]) == (1, 2, 1 + 0)


def test_markdown_soft_hyphen_joins_even_before_a_capital():
    """In Markdown/HTML a soft hyphen is only a hint where a line may break: the word is whole."""
    text = extract_markdown("Deep\u00adSeek trains agen\u00adtic models.\n").text
    assert text == "DeepSeek trains agentic models."


def test_markdown_line_end_hyphenation_is_repaired_like_in_pdfs():
    doc = extract_markdown(
        "We train an agen-\ntic model with rein-\nforcement learning; a trajectory-\nlevel reward.\n\n"
        "The trajectory-level signal is sparse. DeepSeek-\nV3 stays.\n"
    )
    text = fold_ws(doc.text)
    assert "agentic model" in text and "reinforcement learning" in text
    assert "trajectory-level reward" in text and "DeepSeek- V3" in text  # a capital after the break: not joined


def test_combining_accents_are_composed_even_when_a_hidden_character_separates_them():
    text = extract_markdown("re\u0301sume\u0301 and cafe\u200d\u0301 and nai\u0308ve\n").text
    assert text == "résumé and café and naïve"
    assert unicodedata.is_normalized("NFC", text)


def test_zero_width_space_ligatures_fullwidth_and_nbsp_stay_right_in_markdown():
    text = extract_markdown("ag\u200bentic \ufb01ne-tuning \uff21\uff27\uff25\uff2e\uff34 credit\u00a0assignment\n").text
    assert text == "agentic fine-tuning AGENT credit assignment"
