"""Match rules, densities, the 'all' section and the KWIC concordance."""

from __future__ import annotations

import pytest

from ingest.analysis.keywords import count_keywords, density
from ingest.analysis.lexicon import DEFAULT_LEXICON, Lexicon, Term, load_lexicon
from ingest.common.document import Document, Page
from ingest.reading.sections import Segment
from ingest.sources.registry import SpecFileError
from ingest.sources.schema import STUDY_TERMS


def lex(*terms: dict) -> Lexicon:
    return Lexicon.model_validate({"groups": [{"id": "g", "label": "G", "terms": list(terms)}]})


def counts_of(text: str, *terms: dict, section: str = "body") -> dict[str, int]:
    res = count_keywords([Segment(section, 1, "1", text)], lex(*terms))
    return {r["term"]: r["count"] for r in res.counts if r["section"] == "all"}


def test_substring_rule_is_grep_compatible():
    text = "Agentic agents: an AGENT, multi-agent, reagent."
    assert counts_of(text, {"name": "agent", "rule": "substring"}) == {"agent": 5}
    assert counts_of(text, {"name": "agentic", "rule": "substring"}) == {"agentic": 1}


def test_substring_phrase_matches_across_line_breaks():
    assert counts_of("no credit\nassignment here", {"name": "credit assignment", "rule": "substring"}) == {"credit assignment": 1}


def test_word_rule_matches_whole_words_and_listed_inflections():
    text = "An agent, two agents, agentic, multi-agent, reagent, Agent能力."
    got = counts_of(text, {"name": "agent", "rule": "word", "inflections": ["agents"]})
    assert got == {"agent": 4}  # agent, agents, multi-agent, Agent能力 (not agentic, not reagent)
    assert counts_of("agentic agents", {"name": "agent", "rule": "word"}) == {"agent": 0}


def test_word_rule_aliases_and_case_sensitivity():
    term = {"name": "GRPO", "rule": "word", "case_sensitive": True, "aliases": ["Group Relative Policy Optimization"]}
    text = "We use GRPO (Group Relative Policy Optimization); grpo in lower case is not counted; GRPO-style."
    assert counts_of(text, term) == {"GRPO": 3}


def test_regex_rule():
    term = {"name": "best-of-N", "rule": "regex", "pattern": r"\bbest[- ]of[- ](n|\d+)\b"}
    assert counts_of("Best-of-N and best of 16 but not best-of-breed.", term) == {"best-of-N": 2}


def test_study_lexicon_declares_the_five_study_terms_as_substrings():
    lexicon = load_lexicon(DEFAULT_LEXICON)
    study = lexicon.group("study")
    assert tuple(t.name for t in study.terms) == STUDY_TERMS
    assert {t.rule for t in study.terms} == {"substring"}


def test_density_is_per_thousand_words_and_unknown_for_empty_sections():
    assert density(50, 28771) == pytest.approx(1.7379, abs=1e-4)
    assert density(0, 0) is None


def test_sections_add_up_to_all_and_kwic_keeps_pages():
    segs = [
        Segment("body", 1, "1", "reward one two three"),
        Segment("body", 2, "2", "four reward"),
        Segment("references", 3, "3", "reward paper"),
    ]
    res = count_keywords(segs, lex({"name": "reward", "rule": "substring"}))
    by = {r["section"]: (r["count"], r["words"]) for r in res.counts}
    assert by == {"body": (2, 6), "appendix": (0, 0), "references": (1, 2), "all": (3, 8)}
    assert [(k["section"], k["page"], k["match"]) for k in res.kwic] == [
        ("body", 1, "reward"),
        ("body", 2, "reward"),
        ("references", 3, "reward"),
    ]
    assert res.kwic[1]["left"].endswith("three four ")


@pytest.mark.parametrize(
    ("term", "message"),
    [
        ({"name": "x", "rule": "regex"}, "needs `pattern:`"),
        ({"name": "x", "rule": "regex", "pattern": "("}, "invalid regular expression"),
        ({"name": "x", "rule": "word", "pattern": "x"}, "only for rule `regex`"),
        ({"name": "x", "rule": "fuzzy"}, "Input should be"),
        ({"name": "x", "rule": "word", "colour": "red"}, "Extra inputs"),
    ],
)
def test_bad_terms_are_rejected_with_a_reason(term, message):
    with pytest.raises(ValueError, match=message):
        Term.model_validate(term)


def test_bad_lexicon_file_names_file_and_field(tmp_path):
    p = tmp_path / "lexicon.yaml"
    p.write_text("version: 1\ngroups:\n  - id: g\n    label: G\n    terms:\n      - {name: x, rule: word, colour: red}\n")
    with pytest.raises(SpecFileError) as err:
        load_lexicon(p)
    assert str(p) in str(err.value) and "groups.0.terms.0.colour" in str(err.value)


def test_chinese_document_counts_characters_as_words():
    from ingest.reading.textnorm import count_words, word_rule

    text = "我们使用强化学习训练Qwen3模型，支持agent能力。"
    assert word_rule(text) == "cjk"
    # 我们使用强化学习训练 (10) + Qwen3 (1) + 模型 (2) + ， (0) + 支持 (2) + agent (1) + 能力 (2) + 。(0)
    assert count_words(text, "cjk") == 18
    doc = Document("markdown", "markdown", [Page(1, text, "x")])
    assert word_rule(doc.text) == "cjk"


def test_english_document_with_a_few_chinese_lines_keeps_the_wc_rule():
    from ingest.reading.textnorm import word_rule

    assert word_rule("This English report quotes one prompt: 胡雪岩离船登岸 and goes on in English for a while.") == "whitespace"


def test_fast_literal_matching_equals_the_regex_semantics():
    """CompiledTerm.spans (str.find) must return exactly what the term's regex finds."""
    import random

    lexicon = load_lexicon(DEFAULT_LEXICON)
    rng = random.Random(7)
    words = [
        "agent",
        "Agentic",
        "agents",
        "multi-agent",
        "GRPO",
        "grpo",
        "reward model",
        "reward models",
        "PRM",
        "PRMs",
        "tool-use",
        "tool use",
        "Tool",
        "rule-based",
        "rule based",
        "sandboxes",
        "x",
        "能力",
        "-",
        "_",
        "İstanbul",
        "ß",
    ]
    texts = [" ".join(rng.choice(words) + rng.choice(["", " ", "-", ".", "s"]) for _ in range(60)) for _ in range(40)]
    texts.append("reward modelsreward model rewardmodel reward model")
    for text in texts:
        for ct in lexicon.compiled:
            assert ct.spans(text) == [m.span() for m in ct.regex.finditer(text)], (ct.term, text)


def test_fast_matching_equals_regex_on_the_corpus(corpus):
    from ingest.reading.extract import extract_file
    from ingest.reading.textnorm import fold_ws

    lexicon = load_lexicon(DEFAULT_LEXICON)
    for path in sorted((corpus / "pdf").glob("*.pdf"))[:2] + sorted((corpus / "blog").glob("*.md")):
        text = fold_ws(extract_file(path).text)
        for ct in lexicon.compiled:
            assert ct.spans(text) == [m.span() for m in ct.regex.finditer(text)], (path.name, ct.term)


def test_kwic_lines_are_capped_per_term_and_section_but_counts_stay_exact():
    from ingest.analysis.keywords import MAX_KWIC_PER_SECTION

    n = MAX_KWIC_PER_SECTION + 1000
    res = count_keywords([Segment("body", 1, "1", "reward " * n)], load_lexicon())
    row = next(r for r in res.counts if r["term"] == "reward" and r["section"] == "body")
    assert row["count"] == n
    assert sum(1 for k in res.kwic if k["term"] == "reward") == MAX_KWIC_PER_SECTION


def test_regex_terms_tried_only_at_their_start_words_find_what_finditer_finds():
    """`regex` terms whose matches start with a word are tried only where it stands; the spans must
    still be exactly `finditer`'s, also next to characters that ignore-case equates with ASCII
    letters (Kelvin sign, İ, ı, ſ), where the lower-cased text is not used."""
    import _sre
    import random
    import sys

    from ingest.analysis.lexicon import _ASCII_LOOKALIKES

    lexicon = load_lexicon(DEFAULT_LEXICON)
    terms = [ct for ct in lexicon.compiled if ct.rule == "regex"]
    assert any(ct.starts for ct in terms)
    rng = random.Random(11)
    words = ["keep", "Keep", "KEEP", "kept", "retain", "the", "previous", "thinking", "Reasoning", "best", "of", "N"]
    words += ["8", "best-of-16", "LLM", "as", "a", "judge", "Dr.", "Dr", "GRPO", "\u017f", "\u212a", "\u0130", "\u0131"]
    for _ in range(2000):
        text = "".join(rng.choice(words) + rng.choice(["", " ", "-", ".", "  ", "\n"]) for _ in range(rng.randint(0, 30)))
        for ct in terms:
            want = [m.span() for m in ct.regex.finditer(text)]
            assert ct.spans(text) == want and ct.spans(text, text.lower()) == want, (ct.term, text)
    # the guard lists every non-ASCII character that lower-cases to or ignore-case-matches ASCII
    for c in range(0x80, sys.maxunicode + 1):
        ch = chr(c)
        if not 0xD800 <= c <= 0xDFFF and (_sre.unicode_tolower(c) < 128 or len(ch.lower()) != 1 or ch.lower().isascii()):
            assert ch in _ASCII_LOOKALIKES, hex(c)
