"""Bad YAML: report files (malformed, not a mapping, unknown keys, wrong types, bad ids, bombs; run
through ingest by bad_input_ingest, round 1), pasted YAML over the caps (round 2), and every other
YAML the tool reads under the same budgets, plus `check` after an invalid date (round 3)."""

from __future__ import annotations

import time
from pathlib import Path

from bad_input_cases import HEAD, Case, Catalogue, Check, rss_mb, yaml_case

from ingest import checks
from ingest.analysis.lens import load_lens
from ingest.analysis.lexicon import load_lexicon
from ingest.sources.registry import SpecFileError
from ingest.sources.watch import WatchError, load_watch
from views.add_report import spec_from_yaml

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


def _lol(n: int = 9) -> str:
    """A "billion laughs": nine levels of nine aliases each."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, n):
        c, prev = chr(ord("a") + i), chr(ord("a") + i - 1)
        lines.append(f"{c}: &{c} [{', '.join(['*' + prev] * 9)}]")
    return "\n".join(lines) + "\n"


def _refused_quickly(load: object, what: str) -> Check:
    """`load()` must raise (a refusal), within 2 s, growing this process by little."""
    before, t0 = rss_mb(), time.perf_counter()
    try:
        load()  # type: ignore[operator]
        msg = "accepted"
    except (SpecFileError, WatchError, ValueError) as exc:
        msg = str(exc)[:140]
    took, grew = time.perf_counter() - t0, rss_mb() - before
    refused = msg != "accepted"
    return Check(refused and took < 2, f"{what}: {msg} ({took:.2f} s)", wrong=int(not refused), peak_mb=grew,
                 process="this process (growth)", seconds=took)  # fmt: skip


def yaml_caps_family(cat: Catalogue) -> None:
    """Round 2: pasted YAML of 2, 4 and 20 MB, and 256 KB of tiny values or keys."""
    head = "id: x\nmodel: m\norganization: o\ndoc_type: blog\n"
    cases = {
        "paste-2MB": head + "notes: |\n  " + "a" * (2 << 20) + "\n",
        "paste-4MB": head + "tags: [" + ",".join(["a"] * (2 << 20)) + "]\n",
        "paste-20MB": head + "notes: |\n  " + "a" * (20 << 20) + "\n",
        "256KB-of-values": (head + "tags: [" + ",".join(["a"] * 120_000) + "]\n")[: 256 * 1024],
        "256KB-of-keys": "".join(f"k{i}: 1\n" for i in range(25_000))[: 256 * 1024],
    }
    for name, text in cases.items():
        cat.add(2, "yaml-caps", name, lambda text=text, name=name: _refused_quickly(lambda: spec_from_yaml(text), name))


def every_yaml_family(cat: Catalogue, work: Path) -> None:
    """Round 3: the watch list, a lens and a lexicon with an alias bomb, deep nesting or 1 MB: refused
    by the one guarded loader, quickly; and `check` naming every error after an unquoted invalid date."""
    work.mkdir(parents=True, exist_ok=True)
    bodies = {
        "alias-bomb": "version: 1\nx:\n" + "".join("  " + ln + "\n" for ln in _lol().splitlines()),
        "deep-nesting": "version: 1\nx: " + "[" * 5000 + "]" * 5000 + "\n",
        "1MB": "version: 1\nnotes: '" + "x" * (1 << 20) + "'\n",
    }
    loaders = {"watch.yaml": load_watch, "lens": load_lens, "lexicon": load_lexicon}
    for kind, body in bodies.items():
        for what, load in loaders.items():
            path = work / f"{what.replace('.yaml', '')}-{kind}.yaml"
            path.write_text(body, encoding="utf-8")
            cat.add(
                3,
                "every-yaml",
                f"{what}-{kind}",
                lambda load=load, path=path, what=what: _refused_quickly(lambda: load(path), what),
            )

    def check_after_a_bad_date() -> Check:
        p = work / "dated.yaml"
        p.write_text("id: dated\nmodel: M\norganization: Lab\ndoc_type: pdf\nreleased: 2025-13-45\ntags: 5\nsorce: {url: x}\n"
                     "curated:\n  rl_algorithm: {value: PPO, page: -3}\n", encoding="utf-8")  # fmt: skip
        found = {f.field for f in checks.check_file(p, (work,), checks.load_vocabulary()) if f.severity == "error"}
        want = {"released", "doc_type", "tags", "sorce", "curated.rl_algorithm.page"}
        return Check(want <= found, f"errors named: {sorted(found)}", wrong=len(want - found))

    cat.add(3, "every-yaml", "check-every-error-after-an-invalid-date", check_after_a_bad_date)
