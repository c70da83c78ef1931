"""The package's layering: no import cycles, the evaluator never imports the miner (nor the miner
the evaluator), and the shared layer `ud_agree` imports neither, but for its lazy entry points."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import ROOT

FOLDERS = {"ud_agree": "ud_agree", "mine": "ud_agree.mine", "evaluate": "ud_agree.evaluate"}
# Entry points that dispatch to the tools (the console script, the public API's lazy names).
DISPATCHERS = {"ud_agree", "ud_agree.cli"}


def modules() -> dict[str, Path]:
    """Every module of the package by its installed name."""
    found = {}
    for folder, name in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([name, *parts])] = path
    return found


def imports_of(name: str, path: Path, known: set[str], type_checking: bool = False) -> set[str]:
    """The package's modules that a module imports (type-checking-only imports left out, unless
    `type_checking`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    checking = (
        set()
        if type_checking
        else {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for inner in block.body
            for node in ast.walk(inner)
        }
    )
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in known:
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                found.add(candidate)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imports_of(name, path, set(found)) for name, path in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_finds_a_cycle_written_here():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_relative_imports_resolve_to_the_installed_names():
    edges = graph()
    assert "ud_agree.evaluate.options" in edges["ud_agree.evaluate.run"]
    assert "ud_agree.schemas.corpus" in edges["ud_agree.mine.pairs"]


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_tools_share_only_the_ud_agree_layer():
    for name, targets in graph().items():
        if name.startswith("ud_agree.evaluate"):
            assert not any(t.startswith("ud_agree.mine") for t in targets), name
        elif name.startswith("ud_agree.mine"):
            assert not any(t.startswith("ud_agree.evaluate") for t in targets), name
        elif name not in DISPATCHERS:
            assert not any(t.startswith(("ud_agree.mine", "ud_agree.evaluate")) for t in targets), (
                name
            )


def upward_imports(lower: str, upper: str) -> list[tuple[str, str]]:
    """(module, imported) where a module of `lower` imports one of `upper` (dotted prefixes)."""
    found = modules()
    return sorted(
        (name, target)
        for name, path in found.items()
        if name.startswith(lower)
        for target in imports_of(name, path, set(found), type_checking=True)
        if target.startswith(upper)
    )


def test_an_upward_import_written_here_is_found(tmp_path):
    module = tmp_path / "causal.py"
    # Type-checking imports count here: a back-end must not name a reading's types either.
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from ..readings.class_decisions import decide\nimport numpy\n"
    )
    known = {"ud_agree.evaluate.readings.class_decisions", "ud_agree.evaluate.backends.causal"}
    found = imports_of("ud_agree.evaluate.backends.causal", module, known, type_checking=True)
    assert found == {"ud_agree.evaluate.readings.class_decisions"}


def test_back_ends_score_and_readings_decide():
    # Back-ends answer log-probabilities and distributions; readings own items and decisions.
    assert upward_imports("ud_agree.evaluate.backends", "ud_agree.evaluate.readings") == []


def test_output_never_reaches_up_into_the_report():
    assert upward_imports("ud_agree.evaluate.output", "ud_agree.evaluate.report") == []


E = "ud_agree.evaluate"
# What the layers above the back-ends may know of them: their interface (`api`: the protocols and
# the questions they answer), the spec they are built from, and where a mask lies in a text.
API, SPEC, MASKING = f"{E}.backends.api", f"{E}.backends.spec", f"{E}.backends.masking"
# Who may import whom inside the evaluator, lowest layer first: a module of a layer imports only
# modules of its own layer or of the layers listed for it (type-checking imports count too).
# The run's options and its command line sit on top; tasks, back-ends, output and corpus reading
# take the narrow specs the options resolve into (issue 40). The back-ends answer questions about
# texts and nothing else: they import no corpus, no task, no reading (issue 54); tasks and
# readings know them by their interface alone, and only the loop (`run.py`) builds one.
LAYERS: dict[str, tuple[str, ...]] = {
    f"{E}.sharding.spec": (),
    f"{E}.corpus": (),
    f"{E}.output": (f"{E}.sharding.spec",),
    API: (),
    SPEC: (),
    MASKING: (),
    f"{E}.backends": (API, SPEC, MASKING),
    f"{E}.readings": (API, MASKING),
    f"{E}.summary": (f"{E}.readings",),
    # Every source of pairs is read in one place, into one pair table.
    f"{E}.sources": (f"{E}.corpus", f"{E}.readings"),
    f"{E}.tasks": (API, SPEC, f"{E}.corpus", f"{E}.output", f"{E}.readings", f"{E}.sources",
                   f"{E}.summary"),
    # `python -m evaluate.merge`: the merge of shards reads the store and writes the summary,
    # never the report.
    f"{E}.merge": (f"{E}.output", f"{E}.sharding", f"{E}.summary"),
}  # fmt: skip
TOP = (
    f"{E}.options",
    f"{E}.cli",
    f"{E}.suite",
    f"{E}.run",
    f"{E}.plan",
    f"{E}.cluster",
    f"{E}.merge",
)


def layer_of(module: str) -> str | None:
    """The most specific layer a module belongs to."""
    found = [layer for layer in LAYERS if module == layer or module.startswith(layer + ".")]
    return max(found, key=len) if found else None


def layering_breaches(planted: dict[str, Path] | None = None) -> list[tuple[str, str]]:
    """(module, imported) where an evaluator module (or one of `planted`) imports one its layer
    may not."""
    found = {**modules(), **(planted or {})}
    breaches = []
    for name, path in found.items():
        layer = layer_of(name)
        if layer is None:
            continue
        allowed = (layer, *LAYERS[layer])
        for target in imports_of(name, path, set(found), type_checking=True):
            if not target.startswith(E) or target == E:
                continue
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                breaches.append((name, target))
    return sorted(breaches)


def test_each_evaluator_layer_imports_only_the_layers_below_it():
    assert layering_breaches() == []


def test_a_layering_breach_written_here_is_found(monkeypatch):
    monkeypatch.setitem(LAYERS, f"{E}.merge", (f"{E}.output", f"{E}.sharding"))
    assert (f"{E}.merge", f"{E}.summary.tables") in layering_breaches()


def test_tasks_back_ends_output_and_corpus_reading_never_import_the_run_options():
    # Each run is resolved once (issue 40): the CLI and the plan make its options; the back-ends
    # take a ModelSpec, the tasks a Scoring, ItemChoice or SuiteRun, the output a RunOutput, the
    # corpus reader its folder and language.
    for lower in (f"{E}.backends", f"{E}.output", f"{E}.corpus", f"{E}.tasks", f"{E}.readings",
                  f"{E}.summary", f"{E}.sharding", f"{E}.sources"):  # fmt: skip
        for top in TOP:
            assert upward_imports(lower, top) == [], (lower, top)


def test_back_ends_never_import_a_task():
    assert upward_imports(f"{E}.backends", f"{E}.tasks") == []


def test_a_task_reaching_a_back_end_or_a_back_end_reaching_the_corpus_is_found(tmp_path):
    # Planted modules: a task naming a concrete back-end, a back-end naming the corpus reader.
    task = tmp_path / "task.py"
    task.write_text("from ..backends.causal import CausalLM\nfrom ..backends.api import Blank\n")
    backend = tmp_path / "backend.py"
    backend.write_text("from ..corpus import Corpus\nfrom .api import TokenScores\n")
    planted = {f"{E}.tasks.planted": task, f"{E}.backends.planted": backend}
    assert layering_breaches(planted) == [
        (f"{E}.backends.planted", f"{E}.corpus"),
        (f"{E}.tasks.planted", f"{E}.backends.causal"),
    ]


def test_back_ends_read_no_tables():
    # Back-ends answer questions about texts: no module of theirs reads a corpus, an item or a
    # table of counts (none imports polars).
    found = modules()
    for name, path in found.items():
        if name.startswith(f"{E}.backends"):
            tree = ast.parse(path.read_text())
            imported = {
                alias.name.split(".")[0]
                for node in ast.walk(tree)
                if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in (
                    node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
                )
            }
            assert "polars" not in imported, name


def test_the_merge_of_shards_never_imports_the_report():
    assert upward_imports(f"{E}.merge", f"{E}.report") == []
    assert upward_imports(f"{E}.sharding", f"{E}.report") == []


def test_the_evaluators_usage_error_lives_with_the_other_errors():
    from ud_agree.evaluate import options

    from ud_agree.errors import UsageError, UserError

    assert options.UsageError is UsageError and issubclass(UsageError, UserError)


M = "ud_agree.mine"
# What the miner's rules may import: plain data and the lexicon's tables, never the reader,
# the file tables, the pair stream or the run (a rule is a function over arrays or columns).
RULES_READ = (f"{M}.rules", f"{M}.paradigms", f"{M}.questions", f"{M}.languages",
              f"{M}.features", f"{M}.extract")  # fmt: skip
# The reader turns bytes into arrays: it imports no rule of the pairs.
READER = (f"{M}.columnar", f"{M}.arrays", f"{M}.trees", f"{M}.utf8", f"{M}.read")
# What it may read of the rules: the relation rules and the words they read.
RELATION_RULES = {f"{M}.rules.{name}" for name in ("words", "candidates", "relations")}


def rule_breaches() -> list[tuple[str, str]]:
    """(module, imported) where a module of `mine/rules/` imports beyond RULES_READ, or the
    reader imports a pair rule (run-time imports)."""
    found = modules()
    breaches = []
    for name, path in found.items():
        targets = {t for t in imports_of(name, path, set(found)) if t.startswith(M + ".")}
        if name.startswith(f"{M}.rules."):
            allowed = RULES_READ
            breaches += [(name, t) for t in targets if not t.startswith(allowed)]
        elif name in READER:
            pair_rules = {t for t in targets if t.startswith(f"{M}.rules.")}
            breaches += [(name, t) for t in pair_rules if t not in RELATION_RULES]
    return sorted(breaches)


def test_the_miners_rules_read_plain_data_and_the_reader_no_pair_rule():
    assert rule_breaches() == []


def test_a_rule_that_imports_the_run_is_found(monkeypatch):
    original = imports_of

    def planted(name: str, path: Path, known: set[str], type_checking: bool = False) -> set[str]:
        found = original(name, path, known, type_checking)
        return found | {f"{M}.run"} if name == f"{M}.rules.hosts" else found

    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "imports_of", planted)
    assert (f"{M}.rules.hosts", f"{M}.run") in rule_breaches()
