"""The layering of the Python code, read from its import statements (ast), as
test_layering.py reads the C++ includes: the report package (tools/hdreport/) has no
import cycle and never imports its command line (tools/hdbench_report.py) or the
PyTorch baselines (baselines/pytorch/); the baselines use the package's writer only;
no package module edits sys.path; importing the package imports no heavy library (the
command line answers a missing matplotlib in one line, so it must get that far)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "tools" / "hdreport"
BASELINES = ROOT / "baselines" / "pytorch"
CLI = "hdbench_report"
HEAVY = {"matplotlib", "numpy", "scipy", "torch"}


def modules(folder: Path, prefix: str = "") -> dict[str, Path]:
    return {prefix + ".".join(p.relative_to(folder).with_suffix("").parts): p
            for p in sorted(folder.rglob("*.py")) if p.stem != "__init__"}


PACKAGE_MODULES = modules(PACKAGE, "hdreport.")
BASELINE_MODULES = modules(BASELINES)


def imports(path: Path, package: str = "hdreport", top_level_only: bool = False) -> list[tuple[str, int]]:
    """[(module imported, line)], `from hdreport import x` counted as hdreport.x where x is
    a module; relative imports resolved against `package`."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else ast.walk(tree)
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package if node.level else (node.module or "")
            if node.level and node.module:
                base = f"{package}.{node.module}"
            submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in PACKAGE_MODULES]
            out += [(m, node.lineno) for m in submodules] or [(base, node.lineno)]
    return out


def graph() -> dict[str, set[str]]:
    return {name: {m for m, _ in imports(path) if m in PACKAGE_MODULES and m != name}
            for name, path in PACKAGE_MODULES.items()}


def cycle(edges: dict[str, set[str]]) -> list[str]:
    """One import cycle as [a, b, ..., a], or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_package_and_the_baselines_are_found():
    assert {"hdreport.core.schema", "hdreport.core.writer", "hdreport.figures", "hdreport.summary"} <= set(PACKAGE_MODULES)
    assert "pytorch_baseline" in BASELINE_MODULES


def test_the_cycle_check_sees_a_cycle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle():
    found = cycle(graph())
    assert not found, "import cycle in tools/hdreport: " + " -> ".join(found)


def test_the_package_never_imports_its_command_line_or_the_baselines():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m}" for name, path in PACKAGE_MODULES.items()
             for m, line in imports(path) if m.split(".")[0] in {CLI, *BASELINE_MODULES}]
    assert not wrong, "the report package imports upward: " + "; ".join(wrong)


def test_the_baselines_use_the_package_only_through_its_writer():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m}" for path in BASELINE_MODULES.values()
             for m, line in imports(path, package="") if m.split(".")[0] in {"hdreport", CLI}
             and m != "hdreport.core.writer"]
    assert not wrong, "a baseline reaches past hdreport.writer: " + "; ".join(wrong)


def test_no_package_module_edits_sys_path():
    wrong = []
    for path in [*PACKAGE_MODULES.values(), PACKAGE / "__init__.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "path" and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not wrong, "sys.path used in the report package (import it by its name instead): " + ", ".join(wrong)


def test_importing_the_package_imports_no_heavy_library():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m} at module level"
             for path in [*PACKAGE_MODULES.values(), PACKAGE / "__init__.py"]
             for m, line in imports(path, top_level_only=True) if m.split(".")[0] in HEAVY]
    assert not wrong, "import these where a figure is drawn: " + "; ".join(wrong)
