"""The folders are the architecture, and imports point one way (DESIGN.md, "Layers by job"):

    bytecode  <-  compiler
    bytecode  <-  runtime
    compiler, runtime  <-  present  <-  catalog (the card database)  <-  cardsmith (the tools: command line,
    terminal player, scenarios)

The bytecode format imports nothing of ours; the compiler imports the format and no runtime or
presentation; the runtime imports the format only; presentation may read compiler results and runtime
statistics. The import graph is read from the source (every import statement, also those inside
functions), so a lazy import cannot hide a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"bytecode": "bytecode", "compiler": "compiler", "runtime": "runtime", "present": "present",
            "catalog": "catalog", "cardsmith": "cardsmith"}
# What each top-level package may import from the others.
ALLOWED = {
    "bytecode": set(),
    "compiler": {"bytecode"},
    "runtime": {"bytecode"},
    "present": {"bytecode", "compiler", "runtime"},
    "catalog": {"bytecode", "compiler", "runtime", "present"},
    "cardsmith": {"bytecode", "compiler", "runtime", "present", "catalog"},
}


def _package_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cardsmith":
        return None
    if len(parts) > 1 and parts[1] in PACKAGES and parts[1] != "cardsmith":
        return parts[1]
    return "cardsmith"


def _imports(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a module of `package`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT / PACKAGES[package]).with_suffix("")
    here = ["cardsmith"] + ([] if package == "cardsmith" else [package]) + list(rel.parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module))
    return out


def _graph() -> dict[str, set[tuple[str, str]]]:
    """package -> {(imported package, 'file:line')}"""
    edges: dict[str, set[tuple[str, str]]] = {p: set() for p in PACKAGES}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, module in _imports(path, package):
                target = _package_of(module)
                if target is not None and target != package:
                    edges[package].add((target, f"{path.relative_to(ROOT)}:{line}"))
    return edges


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_point_down_the_layers(package):
    wrong = sorted(f"{where} imports {target}" for target, where in _graph()[package] if target not in ALLOWED[package])
    assert not wrong, f"{package} may import only {sorted(ALLOWED[package]) or 'nothing of ours'}:\n" + "\n".join(wrong)


def test_no_import_cycle_between_packages():
    edges = {p: {t for t, _ in e} for p, e in _graph().items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(t == goal or (t not in seen and reaches(t, goal, seen | {t})) for t in edges[start])

    cycles = [p for p in edges if reaches(p, p, {p})]
    assert not cycles, f"import cycles through: {cycles}"


def test_the_runtime_runs_without_the_compiler_and_presentation():
    # a simulation worker imports the runtime only: nothing of the compiler's pipeline or of presentation
    import subprocess
    import sys

    code = ("import sys, cardsmith.runtime, cardsmith.runtime.parallel, cardsmith.runtime.balance\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('cardsmith.compiler', 'cardsmith.present', "
            "'lark', 'jinja2')))\nprint(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_no_module_over_900_lines():
    # One job per module: a file past 900 lines holds more than one (issue 13).
    folders = [*PACKAGES.values(), "tests", "benchmarks", "docs/_ext"]
    long = {}
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > 900:
                long[str(path.relative_to(ROOT))] = n
    assert not long, f"modules over 900 lines: {long}"


def test_every_python_folder_is_a_package_of_the_distribution():
    # A folder of modules left out of pyproject's `packages` works in an editable install and is missing
    # from a built wheel (runtime/vm once was): every folder with an __init__.py must be listed.
    import tomllib

    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(tool["packages"])
    missing = []
    for dotted, folder in tool["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            name = ".".join([dotted, *rel.parts])
            if "__pycache__" not in rel.parts and name not in listed:
                missing.append(name)
    assert not missing, f"packages missing from pyproject.toml: {missing}"
