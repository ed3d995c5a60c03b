"""Extraction on generated PDFs with exactly known text, and on Markdown/HTML posts."""

from __future__ import annotations

import pytest

from ingest.common.document import ExtractionError
from ingest.reading.extract import extract_file, extract_pdf
from ingest.reading.markdown import extract_markdown
from ingest.reading.textnorm import count_words


def test_pdf_text_and_word_count_are_exact(make_pdf):
    lines = ["Agentic reinforcement learning with tool use.", "The reward is computed per trajectory."]
    doc = extract_pdf(make_pdf([lines]))
    assert [p.number for p in doc.pages] == [1]
    assert doc.pages[0].text.split("\n") == lines
    assert count_words(doc.text) == sum(len(line.split()) for line in lines)


def test_two_column_page_keeps_each_column_in_reading_order(make_pdf):
    left = ["Left column says agentic.", "Left column ends here."]
    right = ["Right column mentions tool use.", "Right column ends here."]
    doc = extract_pdf(make_pdf([(left, right)]))
    text = doc.pages[0].text
    assert text.split("\n") == left + right
    assert count_words(text) == 17


def test_line_end_hyphenation_is_repaired_but_compounds_are_kept(make_pdf):
    page = [
        "We train with rein-",
        "forcement learning and a trajectory-",
        "level reward; the trajectory-level signal is sparse.",
        "DeepSeek-",
        "V3 stays hyphenated.",
    ]
    text = extract_pdf(make_pdf([page])).pages[0].text
    assert "reinforcement learning" in text
    assert "trajectory-level reward" in text
    assert "DeepSeek-V3" in text
    assert "rein-" not in text


def test_ligatures_are_normalised(make_pdf):
    text = extract_pdf(make_pdf([["An ﬁne-tuning ﬂow for eﬀective agents."]])).pages[0].text
    assert "fine-tuning flow" in text
    assert "\ufb01" not in text and "\ufb02" not in text


def test_pages_are_numbered_from_one(make_pdf):
    doc = extract_pdf(make_pdf([["first page"], ["second page"], ["third page"]]))
    assert [(p.number, p.label, p.text) for p in doc.pages] == [
        (1, "1", "first page"),
        (2, "2", "second page"),
        (3, "3", "third page"),
    ]


def test_pdfplumber_engine_gives_the_same_words(make_pdf):
    path = make_pdf([["Agentic reinforcement learning with tool use."]])
    assert extract_pdf(path, engine="pdfplumber").pages[0].text == extract_pdf(path).pages[0].text


def test_page_limit_is_enforced(make_pdf):
    with pytest.raises(ExtractionError, match="more than the limit"):
        extract_pdf(make_pdf([["a"], ["b"], ["c"]]), max_pages=2)


def test_non_pdf_bytes_named_pdf_are_refused(tmp_path):
    p = tmp_path / "fake.pdf"
    p.write_text("<html><body>Not found</body></html>")
    with pytest.raises(ExtractionError):
        extract_file(p)


def test_empty_file_is_refused(tmp_path):
    p = tmp_path / "empty.pdf"
    p.write_bytes(b"")
    with pytest.raises(ExtractionError, match="empty"):
        extract_file(p)


MARKDOWN = """---
title: "A post: with front matter"
tags: [agent]
---

{{< figure src="x.png" alt="agent" >}}

## Introduction

We trained an **agentic** model with [GRPO](https://example.com/grpo) and tools.

```python
agent = Agent(tool="x")  # code is not prose
```

{{< rawhtml >}}
$$ r = \\text{reward} $$
{{< /rawhtml >}}

## Post-training

<br>The reward comes from unit tests.
| Model | Score |
|---|---|
| Ours | 1 |
"""


def test_markdown_keeps_prose_only_and_says_what_it_dropped():
    doc = extract_markdown(MARKDOWN)
    text = doc.text
    assert "agentic model with GRPO and tools" in text
    assert "front matter" not in text and "Agent(" not in text and "figure" not in text
    assert "\\text" not in text
    assert [p.label for p in doc.pages] == ["Introduction", "Post-training"]
    assert doc.pages[1].text.startswith("Post-training")
    assert "The reward comes from unit tests." in doc.pages[1].text
    joined = "; ".join(doc.notes)
    for what in ("front matter", "fenced code", "shortcodes", "raw-HTML"):
        assert what in joined


def test_html_article_text_keeps_headings():
    html = (
        "<html><head><title>t</title></head><body><nav>Home | Blog | Careers</nav><article>"
        "<h1>Our model</h1><p>" + "We describe agentic reinforcement learning in depth. " * 8 + "</p>"
        "<h2>Post-training</h2><p>" + "The reward comes from a verifier that runs unit tests. " * 8 + "</p>"
        "</article><footer>Copyright</footer></body></html>"
    )
    from ingest.reading.markdown import extract_html

    doc = extract_html(html)
    assert doc.kind == "html"
    assert any(p.label == "Post-training" for p in doc.pages)
    assert "verifier" in doc.text and "Careers" not in doc.text


# --------------------------------------------------------------------------- limits (issue 8 §4)

from ingest.common.document import DEFAULT_LIMITS, TRUNCATED, ExtractLimits  # noqa: E402


def test_default_limits_match_the_download_cap():
    from ingest.sources.fetch import FetchSettings

    assert DEFAULT_LIMITS.max_file_bytes == FetchSettings().max_bytes == 100 * 1024 * 1024
    assert DEFAULT_LIMITS.max_page_chars == 1_000_000 and DEFAULT_LIMITS.max_doc_chars == 8_000_000


@pytest.mark.parametrize("field", ["max_file_bytes", "max_html_bytes", "max_page_chars", "max_doc_chars"])
@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_limits_are_validated(field, bad):
    with pytest.raises(ValueError, match=field):
        ExtractLimits(**{field: bad})


@pytest.mark.parametrize("name", ["big.md", "big.pdf", "big.html"])
def test_file_over_the_size_cap_is_refused_before_reading(tmp_path, name):
    p = tmp_path / name
    p.write_bytes((b"%PDF-1.4\n" if name.endswith(".pdf") else b"") + b"agent " * 400)
    with pytest.raises(ExtractionError, match="more than the size cap of 1,000 bytes"):
        extract_file(p, limits=ExtractLimits(max_file_bytes=1000))


def test_html_page_over_its_own_cap_is_refused(tmp_path):
    p = tmp_path / "page.html"
    p.write_text("<html><body><p>" + "agent " * 400 + "</p></body></html>")
    with pytest.raises(ExtractionError, match=r"HTML page is .* more than the size cap"):
        extract_file(p, limits=ExtractLimits(max_html_bytes=1000))


def test_markdown_block_over_the_page_cap_is_cut_with_a_note_and_the_next_block_is_read(tmp_path):
    p = tmp_path / "post.md"
    p.write_text("# One\n\n" + "agent tool " * 1000 + "\n\nmore agent text\n\n# Two\n\nThe reward is sparse.\n")
    doc = extract_file(p, limits=ExtractLimits(max_page_chars=500))
    assert [pg.label for pg in doc.pages] == ["One", "Two"]
    assert len(doc.pages[0].text) <= 500 and doc.pages[1].text == "Two\n\nThe reward is sparse."
    assert doc.warnings == [n for n in doc.notes if n.startswith(TRUNCATED)] and len(doc.warnings) == 1
    assert "1 block(s) longer than 500 characters" in doc.warnings[0] and "'One'" in doc.warnings[0]


def test_one_line_markdown_far_over_the_page_cap_is_cut_without_reading_it_whole(tmp_path):
    p = tmp_path / "line.md"
    p.write_bytes(b"agent " * 1_000_000)  # 6 MB, one line
    doc = extract_file(p, limits=ExtractLimits(max_page_chars=10_000))
    assert 9_000 < len(doc.text) <= 10_000 and doc.warnings


def test_markdown_document_cap_stops_reading_and_says_where(tmp_path):
    p = tmp_path / "post.md"
    p.write_text("".join(f"# H{i}\n\n" + "agent " * 100 + "\n" for i in range(10)))
    doc = extract_file(p, limits=ExtractLimits(max_doc_chars=1500))
    assert sum(len(pg.text) for pg in doc.pages) <= 1500
    assert len(doc.pages) < 10
    assert any("cap of 1,500 characters" in w and "was not read" in w for w in doc.warnings)


@pytest.mark.parametrize("engine", ["pdfium", "pdfplumber"])
def test_pdf_page_and_document_caps(make_pdf, engine):
    path = make_pdf([["agent tool reward " * 5], ["second page text"], ["third page text"]])
    doc = extract_pdf(path, engine=engine, limits=ExtractLimits(max_page_chars=40))
    assert len(doc.pages[0].text) <= 40 and doc.pages[1].text == "second page text"
    assert "1 page(s) longer than 40 characters cut at that length: 1" in doc.warnings[0]
    doc = extract_pdf(path, engine=engine, limits=ExtractLimits(max_doc_chars=100))
    assert [pg.number for pg in doc.pages] == [1, 2, 3]  # numbering kept
    assert doc.pages[2].text == ""
    assert not any("without text" in n for n in doc.notes)  # unread is not "no text"
    assert "from page 3 on was not read" in doc.warnings[-1]


def test_extract_file_keeps_its_positional_signature(make_pdf):
    seen = []
    doc = extract_file(make_pdf([["a"], ["b"]]), "pdfium", 10, lambda i, n: seen.append((i, n)))
    assert len(doc.pages) == 2 and seen == [(1, 2), (2, 2)]


def test_latin1_markdown_still_reads(tmp_path):
    p = tmp_path / "old.md"
    p.write_bytes("# Caf\xe9\n\nThe agent is na\xefve.\n".encode("latin-1"))
    assert extract_file(p).text == "Café\n\nThe agent is naïve."


def test_markdown_bytes_and_text_give_the_same_document():
    assert extract_markdown(MARKDOWN.encode()).to_dict() == extract_markdown(MARKDOWN).to_dict()
