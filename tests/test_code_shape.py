"""The code's shape as the developers' guide sets it: modules at most 600 lines, functions at most
80 lines, no import cycle among the project's modules (`ingest`, `views`, `eval`, `bench`;
function-level imports included), and no import in `ingest` against the pipeline's layers
(sources → reading → analysis → store → outputs, `common/` under all, `run/` beside).

The size limits are checked against ALLOWLIST, the offenders when this test was written, each
with the reason it is still there: a new offender fails, and so does an entry that is no longer
one (take it off the list), so the list can only shrink. A module may pass the module limit when
splitting it would only scatter one idea: its docstring then has a paragraph that starts with
ONE_IDEA and says why (a file cut in pieces to meet the limit is worse than a long one).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("ingest", "views", "app.py", "bench", "eval", "tests")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
#: How a long module's docstring starts the paragraph that says why it is one module.
ONE_IDEA = "One module, though long:"

#: "path" for a module over the limit, "path::qualified.name" for a function; value: why it is still so.
ALLOWLIST: dict[str, str] = {}


@functools.cache
def parsed(path: Path) -> tuple[str, ast.Module]:
    """A file's text and syntax tree, read once per test process (every check here walks the same files)."""
    text = path.read_text(encoding="utf-8")
    return text, ast.parse(text)


def _python_files() -> list[Path]:
    out: list[Path] = []
    for name in SCANNED:
        p = ROOT / name
        out += [p] if p.is_file() else sorted(q for q in p.rglob("*.py") if ".venv" not in q.parts)
    return out


def _long_functions(tree: ast.AST, rel: str) -> dict[str, int]:
    """Every function or method (nested ones too) longer than the limit: "path::qualified.name" -> lines."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                lines = child.end_lineno - child.lineno + 1
                if not isinstance(child, ast.ClassDef) and lines > MAX_FUNCTION_LINES:
                    out[f"{rel}::{name}"] = lines
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def says_why_long(tree: ast.Module) -> bool:
    """The module's docstring has a paragraph that starts with ONE_IDEA and gives a reason."""
    doc = ast.get_docstring(tree) or ""
    return any(p.strip().startswith(ONE_IDEA) and len(p.strip()) > len(ONE_IDEA) + 20 for p in doc.split("\n\n"))


def offenders() -> dict[str, int]:
    """Modules over MAX_MODULE_LINES and functions over MAX_FUNCTION_LINES, with their line counts."""
    out: dict[str, int] = {}
    for path in _python_files():
        rel = path.relative_to(ROOT).as_posix()
        text, tree = parsed(path)
        if (n := len(text.splitlines())) > MAX_MODULE_LINES and not says_why_long(tree):
            out[rel] = n
        out |= _long_functions(tree, rel)
    return out


def test_no_module_or_function_over_the_limits_beyond_the_allowlist() -> None:
    found = offenders()
    new = {k: n for k, n in found.items() if k not in ALLOWLIST}
    gone = sorted(k for k in ALLOWLIST if k not in found)
    assert not new, f"over {MAX_MODULE_LINES} lines (module) / {MAX_FUNCTION_LINES} lines (function): {new}"
    assert not gone, f"no longer over the limit, take off ALLOWLIST: {gone}"


def test_a_long_module_passes_only_when_its_docstring_says_why() -> None:
    why = f'"""Tables.\n\n{ONE_IDEA} the reader and its twelve rules share one state machine."""'
    assert says_why_long(ast.parse(why))
    assert not says_why_long(ast.parse(f'"""Tables.\n\n{ONE_IDEA}"""'))  # no reason given
    assert not says_why_long(ast.parse('"""Tables: a long module."""\n'))


def test_allowlist_entries_give_a_reason() -> None:
    assert all(why.strip() for why in [*ALLOWLIST.values(), *KNOWN_VIOLATIONS.values()])


# --------------------------------------------------------------------------- import cycles


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool, type_only: bool = False) -> set[str]:
    """Every module named by an import anywhere in the tree (in functions too), except under
    `if TYPE_CHECKING:` (never run, so never part of a cycle at run time) unless `type_only`."""
    out: set[str] = set()
    tc = [] if type_only else [n for n in ast.walk(tree) if isinstance(n, ast.If) and _is_type_checking(n)]
    skip = {id(m) for n in tc for m in ast.walk(n)}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join([*pkg, base] if base else pkg)
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}  # `from pkg import module`
    return out


#: Folders whose modules make up the graph; the scripts of eval/ and bench/ also import each other
#: by bare name (the script's folder is first on sys.path).
GRAPHED = ("ingest", "views", "eval", "bench")
SCRIPT_FOLDERS = ("eval", "bench")


def import_graph(folders: tuple[str, ...] = GRAPHED) -> dict[str, set[str]]:
    """module -> the project modules it imports (only names that are modules of `folders`)."""
    files = {_module_name(p): p for f in folders for p in sorted((ROOT / f).rglob("*.py"))}
    bare = {p.stem: name for name, p in files.items() if p.parent.name in SCRIPT_FOLDERS and p.parent.parent == ROOT}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        named = _imports(parsed(path)[1], name, path.name == "__init__.py")
        if path.parent.name in SCRIPT_FOLDERS:
            named |= {bare[m] for m in named if m in bare}
        graph[name] = {m for m in named if m in files and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_cycle_finder_finds_a_cycle_through_a_function_level_import() -> None:
    tree = ast.parse("import ingest.b\ndef f():\n    from ingest import a\n")
    assert "ingest.a" in _imports(tree, "ingest.b", False)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_among_the_project_modules() -> None:
    graph = import_graph()
    assert sum(m.startswith("ingest.") for m in graph) > 30  # the scan found the package
    assert {"views.data", "eval.annotate_eval", "bench.app_speed"} <= graph.keys()
    assert cycles(graph) == []


def test_cycle_finder_follows_bare_imports_between_scripts() -> None:
    """eval/train_confidence.py imports `annotate_eval` by its bare name: that edge counts."""
    graph = import_graph(("eval",))
    assert "eval.annotate_eval" in graph["eval.train_confidence"]


# --------------------------------------------------------------------------- layering

#: The pipeline's stages in order (ingest/<stage>/): a stage imports only itself and earlier stages.
#: `common` comes first: the typed records, the extracted document and atomic writes, the vocabulary
#: every stage may import (it imports no stage). The report schema is `sources/schema.py`, the
#: first stage, so every later stage may import it too.
STAGES = ("common", "sources", "reading", "analysis", "store", "outputs")
#: store/ only stores: besides common/ it imports no stage (no reading, no analysis, no table building).
STORE_MAY_IMPORT = ("common", "store")
#: ingest/run/ runs the stages (child processes under limits, the warm-up of their caches): it is
#: beside the stages, called by the driver (the modules at ingest/'s top: cli, pipeline, …), and no
#: stage imports it.
BESIDE = "run"
#: Arrows that work in progress on other branches removes. Temporary: an entry that is no longer a
#: violation fails the test, so take it off when its branch is merged; never add one.
KNOWN_VIOLATIONS: dict[tuple[str, str], str] = {}


def _place(module: str) -> str:
    """'views' / 'eval' / 'bench' for those folders; the stage, 'run' or 'driver' for an ingest module."""
    parts = module.split(".")
    if parts[0] != "ingest":
        return parts[0]
    return parts[1] if len(parts) > 2 or module in {f"ingest.{s}" for s in (*STAGES, BESIDE)} else "driver"


def layering_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Every import (module, imported) against the layering rules above."""
    rank = {s: i for i, s in enumerate(STAGES)}
    bad: set[tuple[str, str]] = set()
    for src, targets in graph.items():
        a = _place(src)
        for dst in targets:
            b = _place(dst)
            if a not in {*STAGES, BESIDE, "driver"}:
                continue  # views, eval and bench call anything
            if b in {"views", "eval", "bench", "tests", "app"}:
                bad.add((src, dst))  # the package never imports the dashboard or the scripts
            elif a in rank and b not in rank:
                bad.add((src, dst))  # a stage imports no driver module and nothing of run/
            elif a in rank and rank[b] > rank[a]:
                bad.add((src, dst))  # an earlier stage imports a later one
            elif (a == "store" and b not in STORE_MAY_IMPORT) or (a == BESIDE and b == "driver"):
                bad.add((src, dst))
    return bad


def layered_graph() -> dict[str, set[str]]:
    """ingest's import graph (type-only imports included) with the modules of views/eval/bench it names."""
    files = {_module_name(p): p for f in GRAPHED for p in sorted((ROOT / f).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        if not name.startswith("ingest"):
            continue
        # type-only imports count: a stage that names another's type depends on it
        named = _imports(parsed(path)[1], name, path.name == "__init__.py", type_only=True)
        graph[name] = {m for m in named if m in files and m != name}
    return graph


def test_layering_finds_an_arrow_against_the_pipeline() -> None:
    graph = {
        "ingest.reading.extract": {"ingest.common.document", "ingest.sources.schema"},  # allowed
        "ingest.sources.fetch": {"ingest.store.store", "ingest.run.executor"},  # later stage, run/
        "ingest.store.store": {"ingest.reading.extract", "ingest.common.records"},  # store imports reading
        "ingest.analysis.lens": {"ingest.pipeline"},  # a stage imports the driver
        "ingest.run.warm": {"ingest.analysis.lens", "ingest.cli"},  # run/ may import stages, not the driver
        "ingest.pipeline": {"ingest.outputs.tables", "ingest.run.executor", "views.data"},  # not the dashboard
    }
    assert layering_violations(graph) == {
        ("ingest.sources.fetch", "ingest.store.store"),
        ("ingest.sources.fetch", "ingest.run.executor"),
        ("ingest.store.store", "ingest.reading.extract"),
        ("ingest.analysis.lens", "ingest.pipeline"),
        ("ingest.run.warm", "ingest.cli"),
        ("ingest.pipeline", "views.data"),
    }


def test_layering_counts_type_only_imports() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ingest.store.store import Store\n")
    assert "ingest.store.store" in _imports(tree, "ingest.sources.discover", False, type_only=True)
    assert "ingest.store.store" not in _imports(tree, "ingest.sources.discover", False)


def test_no_import_runs_against_the_pipeline() -> None:
    """sources → reading → analysis → store → outputs, common/ first, run/ beside, the driver on top."""
    graph = layered_graph()
    assert {"ingest.common.records", "ingest.outputs.tables", "ingest.store.store", "ingest.cli"} <= graph.keys()
    found = layering_violations(graph)
    new = sorted(found - KNOWN_VIOLATIONS.keys())
    gone = sorted(KNOWN_VIOLATIONS.keys() - found)
    assert not new, "imports against the pipeline's layers:\n" + "\n".join(f"  {a} -> {b}" for a, b in new)
    assert not gone, f"no longer a violation, take off KNOWN_VIOLATIONS: {gone}"


# --------------------------------------------------------------------------- imports at module top

#: Packages of the optional `cluster` extra (requirements-cluster.txt): imported where used, since a
#: default install does not have them.
OPTIONAL_PACKAGES = ("distributed", "dask")


def function_level_imports(folder: str = "ingest") -> set[tuple[str, str]]:
    """(importer module, imported module) of every import inside a function (type-only ones aside);
    `from pkg import name` counts as pkg.name when that is a module of the project."""
    files = {_module_name(p): p for p in sorted((ROOT / folder).rglob("*.py"))}
    out: set[tuple[str, str]] = set()
    for name, path in files.items():
        tree = parsed(path)[1]
        skip = {id(m) for n in ast.walk(tree) if isinstance(n, ast.If) and _is_type_checking(n) for m in ast.walk(n)}
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        for node in {id(m): m for f in funcs for m in ast.walk(f)}.values():
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                out |= {(name, a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    sub = f"{node.module}.{a.name}"
                    out.add((name, sub if sub in files else node.module))
    return out


def test_imports_inside_functions_are_the_measured_ones() -> None:
    """An import sits at module top unless bench/import_costs.py measures what deferring it spares
    (its DEFERRED list, whose costs the bench prints; docs/performance.md), or it is an optional extra."""
    from bench.import_costs import DEFERRED

    measured = {
        (importer, module)
        for importer, module, spared in DEFERRED
        if not spared.startswith("(reference") and module.split(".")[0] not in OPTIONAL_PACKAGES
    }
    found = {(a, b) for a, b in function_level_imports() if b.split(".")[0] not in OPTIONAL_PACKAGES}

    def same(x: tuple[str, str], y: tuple[str, str]) -> bool:  # `from pkg import mod` is found as pkg
        return x[0] == y[0] and (x[1] == y[1] or y[1].startswith(x[1] + ".") or x[1].startswith(y[1] + "."))

    unmeasured = sorted(f for f in found if not any(same(f, m) for m in measured))
    stale = sorted(m for m in measured if m[0].startswith("ingest.") and not any(same(f, m) for f in found))
    assert unmeasured == [], "move these imports to the module top, or measure them in bench/import_costs.py"
    assert stale == [], "no longer deferred: take off bench/import_costs.py's DEFERRED"
