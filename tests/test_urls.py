"""URL normalisation: the links people paste (arXiv abs pages, GitHub blob pages) → the document itself."""

from __future__ import annotations

import pytest

from ingest.sources.urls import UrlError, check_scheme, display_url, expects_pdf, file_url_path, normalize_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # arXiv: abs, pdf, .pdf suffix, versioned, old-style ids, export/www hosts, http, trailing slash, query.
        ("https://arxiv.org/abs/2508.06471", "https://arxiv.org/pdf/2508.06471"),
        ("https://arxiv.org/abs/2508.06471v2", "https://arxiv.org/pdf/2508.06471v2"),
        ("https://arxiv.org/pdf/2508.06471", "https://arxiv.org/pdf/2508.06471"),
        ("https://arxiv.org/pdf/2508.06471v1", "https://arxiv.org/pdf/2508.06471v1"),
        ("https://arxiv.org/pdf/2505.09388.pdf", "https://arxiv.org/pdf/2505.09388"),
        ("http://arxiv.org/abs/2506.13585", "https://arxiv.org/pdf/2506.13585"),
        ("https://www.arxiv.org/abs/2506.13585v3/", "https://arxiv.org/pdf/2506.13585v3"),
        ("https://export.arxiv.org/abs/2501.12948", "https://arxiv.org/pdf/2501.12948"),
        ("https://arxiv.org/html/2508.06471v1", "https://arxiv.org/pdf/2508.06471v1"),
        ("https://arxiv.org/abs/2508.06471?context=cs.CL", "https://arxiv.org/pdf/2508.06471"),
        ("https://arxiv.org/abs/1501.0001", "https://arxiv.org/pdf/1501.0001"),
        ("https://arxiv.org/abs/hep-th/9901001", "https://arxiv.org/pdf/hep-th/9901001"),
        ("https://arxiv.org/abs/math.AG/0601001v2", "https://arxiv.org/pdf/math.AG/0601001v2"),
        # GitHub: blob → raw, with refs that are commits, branches and tags; viewer query/fragment dropped.
        (
            "https://github.com/deepseek-ai/DeepSeek-Prover-V2/blob/e598a57ea3284997d4a2a168a069fdd5064afbc8/DeepSeek_Prover_V2.pdf",
            "https://raw.githubusercontent.com/deepseek-ai/DeepSeek-Prover-V2/e598a57ea3284997d4a2a168a069fdd5064afbc8/DeepSeek_Prover_V2.pdf",
        ),
        (
            "https://github.com/QwenLM/qwenlm.github.io/blob/1f89f8c8/content/blog/gspo/index.md",
            "https://raw.githubusercontent.com/QwenLM/qwenlm.github.io/1f89f8c8/content/blog/gspo/index.md",
        ),
        ("https://github.com/o/r/blob/main/docs/report.pdf", "https://raw.githubusercontent.com/o/r/main/docs/report.pdf"),
        ("https://github.com/o/r/blob/v1.0/report.pdf?raw=true", "https://raw.githubusercontent.com/o/r/v1.0/report.pdf"),
        ("https://github.com/o/r/blob/main/README.md#L10-L20", "https://raw.githubusercontent.com/o/r/main/README.md"),
        ("https://github.com/o/r/blob/main/notes.md?plain=1", "https://raw.githubusercontent.com/o/r/main/notes.md"),
        ("https://github.com/o/r/raw/main/report.pdf", "https://raw.githubusercontent.com/o/r/main/report.pdf"),
        ("https://www.github.com/o/r/blob/main/a%20b.pdf", "https://raw.githubusercontent.com/o/r/main/a%20b.pdf"),
    ],
)
def test_normalize_known_shapes(url: str, expected: str) -> None:
    assert normalize_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "https://ai.meta.com/blog/llama-4-multimodal-intelligence/",
        "https://raw.githubusercontent.com/o/r/main/report.pdf",
        "https://github.com/o/r",  # a repository page: not a file, left alone
        "https://github.com/o/r/releases/download/v1/report.pdf",
        "https://arxiv.org/list/cs.CL/recent",
        "https://example.org/paper.pdf?download=1",
        "http://127.0.0.1:8080/files/x.pdf",
        "file:///tmp/report.pdf",
    ],
)
def test_other_urls_unchanged(url: str) -> None:
    assert normalize_url(url) == url


def test_normalize_is_idempotent() -> None:
    for url in ("https://arxiv.org/abs/2508.06471v2", "https://github.com/o/r/blob/main/x.pdf"):
        once = normalize_url(url)
        assert normalize_url(once) == once


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("ftp://example.org/report.pdf", "ftp:"),
        ("javascript:alert(1)", "javascript:"),
        ("data:application/pdf;base64,JVBERi0=", "data:"),
        ("gopher://example.org/", "gopher:"),
        ("arxiv.org/abs/2508.06471", "no scheme"),
        ("", "empty"),
        ("https:///no-host", "no host"),
        ("file://remote-host/share/x.pdf", "remote host"),
        ("https://example.org/a\nb.pdf", "control characters"),
    ],
)
def test_rejected_urls_say_why(url: str, needle: str) -> None:
    with pytest.raises(UrlError, match=needle):
        normalize_url(url)


def test_scheme_check_is_case_insensitive() -> None:
    assert check_scheme("HTTPS://arxiv.org/abs/2508.06471") == "https"


def test_expects_pdf() -> None:
    assert expects_pdf(normalize_url("https://arxiv.org/abs/2508.06471"))
    assert expects_pdf("https://raw.githubusercontent.com/o/r/main/Report.PDF")
    assert not expects_pdf("https://ai.meta.com/blog/llama-4-multimodal-intelligence/")
    assert not expects_pdf("https://raw.githubusercontent.com/o/r/main/index.md")


def test_file_url_path_decodes_escapes() -> None:
    assert file_url_path("file:///tmp/my%20report.pdf") == "/tmp/my report.pdf"
    assert file_url_path("file://localhost/tmp/x.pdf") == "/tmp/x.pdf"


def test_display_url_hides_credentials() -> None:
    assert display_url("https://user:secret@example.org:8443/x.pdf") == "https://example.org:8443/x.pdf"
    assert display_url("https://example.org/x.pdf") == "https://example.org/x.pdf"
