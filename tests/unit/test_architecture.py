"""The house rules of ../shared/DESIGN.md ("Layout" and "Imports"), checked on the code itself.

The import graph is drawn from every import statement (top-level and function-local) of the
library packages and scripts/:

- no module imports another package's private module (``pkg._mod``) or private name (``_name``);
  what a sibling needs is exported by its package's ``__init__``;
- no import runs up a layer (the table below, from DESIGN.md);
- no import cycle, between modules or between packages;
- ``wordlists`` imports only ``probekit.errors``; ``probekit.report`` renders saved JSON and imports
  no compute package;
- ``import probekit.errors``, ``import wordlists`` and ``import probekit.extrinsic`` load no torch;
- no library function is longer than ``MAX_FUNCTION_LINES`` code lines (signature included;
  docstring, comments and blank lines not counted).
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("probekit", "debias", "wordlists")
SCANNED = ("probekit", "debias", "wordlists", "scripts")

#: Layers from the bottom up (DESIGN.md, "Layout"): a module imports only its own layer or below.
LAYERS = {
    "probekit.errors": 1,
    "probekit._version": 1,
    "probekit.lazy": 1,
    "wordlists": 2,
    "probekit.utils": 2,
    "probekit.stats": 3,
    "probekit.text": 3,
    "probekit.encoders": 3,
    "probekit.training": 3,
    "probekit.embedding": 4,
    "probekit.extrinsic": 4,
    "probekit.report": 5,
    "debias": 5,
    "probekit.intrinsic": 6,
    "probekit.finetune": 6,
    "probekit": 7,
    "probekit.study": 8,
    "probekit.cli": 9,
    "probekit.__main__": 9,
    "scripts": 10,
}

#: Library functions stay short: name the steps (DESIGN.md).
MAX_FUNCTION_LINES = 80

#: The layer-1 modules of the root package that every layer may import.
BOTTOM = {"probekit.errors", "probekit._version", "probekit.lazy"}

#: What report/ may import from the rest of the project (it renders saved JSON only).
REPORT_MAY_IMPORT = ("probekit.report", "probekit.utils", "probekit.stats", "probekit.errors", "probekit._version")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = _package_of(module, path).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every import of project code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, path, node)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES:
                    found.append((submodule, None, node.lineno))
                else:
                    found.append((target, alias.name, node.lineno))
    return [item for item in found if item[0].split(".")[0] in PROJECT]


def _existing(module: str) -> str:
    """The longest prefix of ``module`` that is a module of the project."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module


def _owner(module: str) -> str | None:
    """The package that owns a private module (the part before the first ``_name``), else None."""
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def _layer(module: str) -> int:
    best = max((prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")), key=len)
    return LAYERS[best]


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in MODULES.items():
        for target, _, _ in _imports(module, path):
            resolved = _existing(target)
            if resolved and resolved != module:
                edges[module].add(resolved)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    counter = 0
    for root in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def _top_package(module: str) -> str:
    """The package a module belongs to, in the sense of the layer table (probekit.text, debias, ...)."""
    return max((prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")), key=len)


def test_the_scan_sees_the_project():
    assert "probekit.encoders._load" in MODULES and "debias._swap" in MODULES and "wordlists" in MODULES
    assert len(MODULES) > 80


def test_no_import_of_another_packages_private_module_or_name():
    offences = []
    for module, path in MODULES.items():
        package = _package_of(module, path)
        for target, name, line in _imports(module, path):
            resolved = _existing(target)
            owner = _owner(target)
            if owner is not None and owner != package and target not in BOTTOM:
                offences.append(f"{path.relative_to(ROOT)}:{line} imports private module {target}")
            elif name and name.startswith("_") and not name.startswith("__") and _package_of(resolved, MODULES[resolved]) != package:
                offences.append(f"{path.relative_to(ROOT)}:{line} imports private name {target}.{name}")
    assert not offences, "\n".join(offences)


def test_no_import_runs_up_a_layer():
    offences = []
    for module, path in MODULES.items():
        for target, _, line in _imports(module, path):
            resolved = _existing(target)
            if resolved and _layer(resolved) > _layer(module):
                offences.append(
                    f"{path.relative_to(ROOT)}:{line} (layer {_layer(module)}) imports {resolved} (layer {_layer(resolved)})"
                )
    assert not offences, "\n".join(offences)


def test_no_import_cycles_between_modules():
    assert _cycles(_graph()) == []


def test_no_import_cycles_between_packages():
    package_edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in _graph().items():
        for target in targets:
            a, b = _top_package(module), _top_package(target)
            if a != b:
                package_edges[a].add(b)
    assert _cycles(package_edges) == []


def test_wordlists_imports_only_the_errors():
    for module, path in MODULES.items():
        if module.split(".")[0] != "wordlists":
            continue
        outside = {_existing(t) for t, _, _ in _imports(module, path)} - {""}
        outside = {t for t in outside if not t.startswith("wordlists")}
        assert outside <= {"probekit.errors"}, f"{module} imports {sorted(outside)}"


def test_report_imports_no_compute_package():
    for module, path in MODULES.items():
        if not module.startswith("probekit.report"):
            continue
        for target, _, line in _imports(module, path):
            resolved = _existing(target)
            assert resolved.startswith(REPORT_MAY_IMPORT), f"{path.relative_to(ROOT)}:{line} imports {resolved}"


def test_the_checker_finds_what_it_must(tmp_path):
    """The rules above fail on a planted cycle, an upward import and a private import."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _layer("probekit.cli.main") > _layer("probekit.report._build") > _layer("probekit.utils._io")
    assert _owner("probekit.text._corpus") == "probekit.text" and _owner("probekit.text") is None


@pytest.mark.parametrize("statement", ["import probekit.errors", "import wordlists", "import probekit.extrinsic"])
def test_light_imports_load_no_torch(statement):
    code = f"import sys; {statement}; assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.startswith('torch'))[:3]"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def _code_lines(source: str) -> set[int]:
    """Line numbers that carry a code token (not blank, not only a comment)."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


def _function_lengths(path: Path) -> list[tuple[str, int]]:
    """(qualified name with line, code lines) of every function of a file, docstrings excluded."""
    source = path.read_text(encoding="utf-8")
    code = _code_lines(source)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = set(range(node.lineno, node.end_lineno + 1)) & code
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                lines -= set(range(first.lineno, first.end_lineno + 1))
            found.append((f"{node.name} (line {node.lineno})", len(lines)))
    return found


def test_no_library_function_is_long():
    long = [f"{path.relative_to(ROOT)}: {name} has {n} code lines"
            for module, path in MODULES.items() if module.split(".")[0] in PROJECT
            for name, n in _function_lengths(path) if n > MAX_FUNCTION_LINES]
    assert not long, "\n".join(long)


def test_the_length_rule_counts_code_not_docstrings(tmp_path):
    body = "\n".join(f"    x{i} = {i}  # step" for i in range(MAX_FUNCTION_LINES))
    path = tmp_path / "m.py"
    path.write_text(f'def f():\n    """Doc.\n\n    More doc.\n    """\n\n{body}\n    return x0\n', encoding="utf-8")
    assert _function_lengths(path) == [("f (line 1)", MAX_FUNCTION_LINES + 2)]
