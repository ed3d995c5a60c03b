"""Extraction on generated PDFs with exactly known text, and on Markdown/HTML posts."""

from __future__ import annotations

import pytest

from ingest.extract import ExtractionError, extract_file, extract_markdown, extract_pdf
from ingest.textnorm import count_words


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
    from ingest.extract import extract_html

    doc = extract_html(html)
    assert doc.kind == "html"
    assert any(p.label == "Post-training" for p in doc.pages)
    assert "verifier" in doc.text and "Careers" not in doc.text
