"""Bad report YAML: malformed, not a mapping, unknown keys, wrong types, bad ids, and bombs."""

from __future__ import annotations

from bad_input_cases import HEAD, Case, yaml_case

Y = "yaml"


def malformed_cases() -> list[Case]:
    """YAML that does not parse, is not a mapping, is not UTF-8, or has keys the schema does not know."""
    cases: list[Case] = []
    for name, text in {
        "unclosed-bracket": HEAD + "tags: [a, b\n",
        "unclosed-quote": HEAD + "notes: 'never closed\n",
        "bad-indent": HEAD + "source:\n  path: a.pdf\n    url: https://x.org/a.pdf\n",
        "tab-indent": HEAD + "source:\n\tpath: a.pdf\n",
        "colon-in-value": "id: victim\nmodel: Victim: the model: v2\norganization: Lab\ndoc_type: other\n",
        "duplicate-key": HEAD + "model: Again\n",
        "stray-bracket": HEAD + "]\n",
        "mapping-in-sequence": HEAD + "tags:\n  - a\n  b: c\n",
    }.items():
        cases.append(yaml_case(Y, f"malformed-{name}", text, ("invalid yaml", "duplicate key")))
    for name, text in {
        "empty-file": "",
        "only-document-marker": "---\n",
        "top-level-list": "- id: victim\n- model: x\n",
        "top-level-scalar": "just a string\n",
    }.items():
        cases.append(yaml_case(Y, f"not-a-mapping-{name}", text, ("expected a mapping",)))
    cases.append(yaml_case(Y, "not-utf8", HEAD.encode() + b"notes: caf\xe9\n", ("not utf-8",)))
    cases.append(yaml_case(Y, "nul-byte", HEAD + "notes: a\x00b\n", ("invalid yaml",)))
    for name, body in {
        "top-level-typo": "sorce:\n  path: a.pdf\n",
        "model-typo": "modle: X\n",
        "nested-source-typo": "source:\n  pth: a.pdf\n",
        "reported-typo": "reported:\n  from: x\n  cuonts: {agent: 1}\n",
        "curated-field-typo": "curated:\n  rl_algorithm:\n    valeu: GRPO\n",
        "capitalised-key": "Notes: x\n",
    }.items():
        cases.append(yaml_case(Y, f"unknown-key-{name}", HEAD + body, ("unknown key", "required")))
    return cases


def wrong_type_cases() -> list[Case]:
    """Values of the wrong type or form, and report ids that are not safe file names."""
    cases: list[Case] = []
    for name, body, words in (
        ("released-word", "released: yesterday\n", ("yyyy-mm-dd",)),
        ("released-impossible", "released: 2026-13-45\n", ("yyyy-mm-dd", "date")),
        ("tags-number", "tags: 5\n", ("list",)),
        ("words-text", "reported:\n  from: x\n  words: many\n", ("whole number",)),
        ("words-negative", "reported:\n  from: x\n  words: -5\n", ("greater than or equal",)),
        ("counts-negative", "reported:\n  from: x\n  counts: {agent: -1}\n", (">= 0",)),
        ("counts-float", "reported:\n  from: x\n  counts: {agent: 1.5}\n", ("whole number", "integer")),
        ("doc-type-unknown", "doc_type: paper\n", ("use one of", "duplicate key")),
        ("arxiv-id-bad", "arxiv_id: 'abc'\n", ("pattern", "file name", "should match", "arxiv identifier")),
        ("source-string", "source: https://x.org/a.pdf\n", ("mapping",)),
        ("source-empty", "source: {}\n", ("url:` or `path:",)),
        ("url-ftp", "source:\n  url: ftp://x.org/a.pdf\n", ("http://",)),
        ("url-no-scheme", "source:\n  url: arxiv.org/abs/2508.06471\n", ("http://",)),
        ("url-javascript", "source:\n  url: 'javascript:alert(1)'\n", ("http://",)),
        ("model-empty", "", ("at least 1",)),
    ):
        text = HEAD + body if name != "model-empty" else "id: victim\nmodel: ''\norganization: Lab\ndoc_type: other\n"
        if name == "doc-type-unknown":
            text = "id: victim\nmodel: V\norganization: Lab\ndoc_type: paper\n"
        cases.append(yaml_case(Y, f"wrong-type-{name}", text, words))
    rest = "model: M\norganization: Lab\ndoc_type: other\n"
    for name, rid in {
        "dotdot-x": "../x",
        "dotdot-passwd": "../../etc/passwd",
        "absolute": "/abs",
        "slash": "a/b",
        "dotdot": "..",
        "hidden": ".hidden",
        "uppercase": "UPPER",
        "too-long": "x" * 65,
        "empty": "",
        "space": "a b",
        "backslash": "a\\\\b",
        "nul": "a\\0b",
    }.items():
        cases.append(
            yaml_case(Y, f"id-{name}", f'id: "{rid}"\n' + rest, ("file name", "pattern", "should match", "invalid yaml"))
        )
    cases.append(yaml_case(Y, "id-number", "id: 123\n" + rest, ("text", "string")))
    cases.append(yaml_case(Y, "id-mismatch", "id: other-report\n" + rest, ("does not match the file name",)))
    return cases


def bomb_cases() -> list[Case]:
    """Alias bombs, a huge file, deep nesting."""
    cases: list[Case] = []
    # bombs
    lol = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        c, prev = chr(ord("a") + i), chr(ord("a") + i - 1)
        lol.append(f"{c}: &{c} [{', '.join(['*' + prev] * 9)}]")
    cases.append(
        yaml_case(
            Y, "bomb-billion-laughs", HEAD + "notes:\n" + "\n".join("  " + x for x in lol) + "\n", ("too many yaml aliases",)
        )
    )
    cases.append(yaml_case(Y, "bomb-huge-file", HEAD + "notes: '" + "x" * 300_000 + "'\n", ("file too large",)))
    cases.append(
        yaml_case(
            Y,
            "bomb-deep-nesting",
            HEAD + "tags: " + "[" * 5000 + "]" * 5000 + "\n",
            ("nested too deeply",),
        )
    )
    cases.append(
        yaml_case(
            Y, "bomb-many-aliases", HEAD + "x: &x a\n" + "".join(f"k{i}: *x\n" for i in range(50)), ("too many yaml aliases",)
        )
    )
    return cases
