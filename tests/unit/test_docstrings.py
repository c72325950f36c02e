"""Docstrings of the public API wherever it lives, and the cross-references in every docstring.

ruff's pydocstyle rules treat every function of a ``_module.py`` as private, so they check only the
package faces. Here every name a package exports (``__all__`` of probekit, its subpackages, debias
and wordlists) must have a numpydoc docstring (a one-line summary, then sections), and so must the
public methods and properties of the exported classes. And every ``:func:``, ``:class:``,
``:meth:`` (and ``:mod:``, ``:data:``, ``:attr:``) role in any docstring of the library must name
an object that exists, so a docstring cannot keep pointing to a home a function has moved out of.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("probekit", "debias", "wordlists")
#: Roles whose target must resolve to a Python object.
ROLE = re.compile(r":(func|class|meth|mod|data|attr|exc):`~?!?(?P<target>[^`<>]+?)(?:\s*<(?P<link>[^>]+)>)?`")
#: Third-party packages the docstrings may point into (resolved only when importable).
EXTERNAL = ("datasets", "transformers", "torch", "numpy", "np", "sklearn", "scipy", "pandas", "accelerate", "ray",
            "safetensors", "concept_erasure", "matplotlib", "tqdm", "huggingface_hub")


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join(parts))
    return names


MODULES = [m for m in _modules() if not m.endswith("__main__")]  # importing __main__ runs the CLI
FACES = [m for m in MODULES if (ROOT / Path(*m.split(".")) / "__init__.py").is_file()]


def _own(obj: Any) -> bool:
    return (getattr(obj, "__module__", "") or "").split(".")[0] in PACKAGES


def _exported() -> list[tuple[str, str, Any]]:
    found = []
    for face in FACES:
        module = importlib.import_module(face)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and _own(obj):
                found.append((face, name, obj))
    return found


def _public_members(cls: type) -> list[tuple[str, Any]]:
    members = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if inspect.isfunction(function) and _own(function) and function.__qualname__.startswith(cls.__qualname__ + "."):
            members.append((name, function))
    return members


def _ruff_findings(tmp_path: Path) -> list[tuple[Path, int, str]]:
    """ruff's docstring (D) findings on a copy of the library in which no module is private.

    pydocstyle treats every function of a ``_module.py`` as private; in the copy ``_run.py`` is
    ``run.py``, so ruff applies the project's numpydoc rules (pyproject.toml) to the names each
    module exports. Returns (original file, line, message).
    """
    ruff = pytest.importorskip("ruff.__main__")  # a test dependency of the project (pyproject: [test])
    origin: dict[Path, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT)
            name = path.name if path.name.startswith("__") else path.name.lstrip("_")
            target = tmp_path / relative.parent / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
            origin[target.resolve()] = path
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run([ruff.find_ruff_bin(), "check", "--no-cache", "--output-format", "json", "."], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    found = []
    for item in json.loads(done.stdout or "[]"):
        if item["code"] and item["code"].startswith("D"):
            found.append((origin[Path(item["filename"]).resolve()], item["location"]["row"], f"{item['code']} {item['message']}"))
    return found


def test_every_exported_function_and_class_follows_the_docstring_rules(tmp_path):
    """ruff's numpydoc rules on every exported function and class (and their public methods), and
    a docstring on each of them (also where the defining module's ``__all__`` leaves them out)."""
    spans: list[tuple[Path, int, int, str]] = []
    problems = []
    for face, name, obj in _exported():
        if not (inspect.getdoc(obj) if inspect.isclass(obj) else obj.__doc__):
            problems.append(f"{face}.{name}: no docstring")
        for member, function in _public_members(obj) if inspect.isclass(obj) else []:
            if not function.__doc__:
                problems.append(f"{face}.{name}.{member}: no docstring")
        try:
            lines, start = inspect.getsourcelines(obj)
        except (OSError, TypeError):
            continue
        spans.append((Path(inspect.getsourcefile(obj)).resolve(), start, start + len(lines) - 1, f"{face}.{name}"))
    for path, row, message in _ruff_findings(tmp_path):
        owners = [label for file, first, last, label in spans if file == path.resolve() and first <= row <= last]
        if owners:
            problems.append(f"{owners[0]} ({path.relative_to(ROOT)}:{row}): {message}")
    assert not problems, "\n".join(sorted(set(problems)))


# ------------------------------------------------------------------------------------------ cross-references


def _docstrings(module_name: str) -> list[tuple[str, str | None, str]]:
    """(docstring, enclosing class name or None, where) of the module and of every def and class in it."""
    path = ROOT / Path(*module_name.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    if ast.get_docstring(tree):
        found.append((ast.get_docstring(tree), None, f"{module_name} (module)"))

    def visit(node: ast.AST, cls: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(child)
                owner = child.name if isinstance(child, ast.ClassDef) else cls
                if doc:
                    found.append((doc, owner, f"{module_name}:{child.lineno} {child.name}"))
                visit(child, owner)

    visit(tree, None)
    return found


def _fields(space: Any) -> set[str]:
    """Attributes a class declares without a class-level value (dataclass fields, annotations)."""
    if not inspect.isclass(space):
        return set()
    names: set[str] = set()
    for klass in space.__mro__:
        names |= set(getattr(klass, "__annotations__", {})) | set(getattr(klass, "__dataclass_fields__", {}))
    return names


def _lookup(target: str, namespaces: list[Any]) -> bool:
    head, *rest = target.split(".")
    for space in namespaces:
        if space is not None and not rest and head in _fields(space):
            return True
        if space is None or not hasattr(space, head):
            continue
        obj = getattr(space, head)
        try:
            for part in rest:
                obj = getattr(obj, part)
        except AttributeError:
            continue
        return True
    return False


def _qualified(target: str) -> bool | None:
    """Resolve a dotted path by import (None: a third-party name that is not installed)."""
    parts = target.split(".")
    if not all(parts):
        return False  # a relative or malformed path
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if part in _fields(obj):
                return True
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return None if parts[0] in EXTERNAL else False


def _resolves(target: str, module: Any, cls: str | None) -> bool:
    target = target.strip().rstrip("()")
    package = importlib.import_module(module.__name__.rpartition(".")[0]) if "." in module.__name__ else None
    spaces = [module, package, getattr(module, cls, None) if cls else None]
    if _lookup(target, spaces):
        return True
    found = _qualified(target)
    return found is None or found


@pytest.mark.parametrize("module_name", MODULES)
def test_every_cross_reference_in_the_docstrings_resolves(module_name):
    module = importlib.import_module(module_name)
    broken = []
    for doc, cls, where in _docstrings(module_name):
        for match in ROLE.finditer(doc):
            target = match.group("link") or match.group("target")
            if not _resolves(target, module, cls):
                broken.append(f"{where}: {match.group(0)}")
    assert not broken, "\n".join(broken)
