"""The layering of the Python code, read from its import statements (ast), as
test_layering.py reads the C++ includes. The report package (tools/hdreport/) has rooms
(its __init__.py draws them):

    core/                 imports only the core
    families/<family>/    imports the core and itself, never another family
    profile/              imports the core and itself
    the top level         (page, summary, figures, compare, registry) may import any room

so a sibling import (a family importing another) and an upward import (the core or a room
importing the top level or another room) fail, naming the file, its line and the import.
Besides the rooms: the package has no import cycle, imports nothing outside the standard
library but matplotlib and numpy, never imports its command lines (tools/hdbench_report.py,
tools/hdbench_profile.py) or the PyTorch baselines (baselines/pytorch/), and edits no
sys.path; the command lines import no family (what a family does is the package's); the
baselines use the package's writer only; importing the package imports no heavy library
(the command line answers a missing matplotlib in one line, so it must get that far)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "tools" / "hdreport"
BASELINES = ROOT / "baselines" / "pytorch"
CLIS = {"hdbench_report": ROOT / "tools" / "hdbench_report.py", "hdbench_profile": ROOT / "tools" / "hdbench_profile.py"}
HEAVY = {"matplotlib", "numpy", "scipy", "torch"}
THIRD_PARTY = {"matplotlib", "numpy"}  # the only libraries the package may import besides the standard library
WRITER = "hdreport.core.writer"


def package_modules(folder: Path = PACKAGE, name: str = "hdreport") -> dict[str, Path]:
    """{dotted name: path} of every module of the package, each package's __init__.py by the
    package's own name (hdreport.families.loader for families/loader/__init__.py)."""
    out = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        out[".".join((name, *parts))] = path
    return out


def baseline_modules() -> dict[str, Path]:
    return {p.stem: p for p in sorted(BASELINES.glob("*.py"))}


PACKAGE_MODULES = package_modules()


def imports(path: Path, name: str = "", known: dict | None = None,
            top_level_only: bool = False) -> list[tuple[str, int]]:
    """[(module imported, line)] of the file `path`, the module `name` (for relative imports).
    `from P import x` counts as P.x where P.x is a module of `known` (a submodule), else as P."""
    known = PACKAGE_MODULES if known is None else known
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else ast.walk(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
            out += [(m, node.lineno) for m in submodules] or [(base, node.lineno)]
    return out


def room(module: str) -> str:
    """The room of a package module: `core`, `profile`, `families.<family>`, `families` (the
    families package itself) or `top`."""
    parts = module.split(".")[1:]
    if not parts:
        return "top"  # hdreport/__init__.py
    if parts[0] in ("core", "profile"):
        return parts[0]
    if parts[0] == "families":
        return "families" if len(parts) == 1 else f"families.{parts[1]}"
    return "top"


def allowed(importer: str, imported: str) -> str:
    """'' when a module of room `importer` may import one of room `imported`, else why not."""
    if importer == "top" or importer == imported or imported == "core":
        return ""
    if importer == "core":
        return f"the core imports only the core, not {describe(imported)}"
    if importer.startswith("families"):
        what = "the families package" if importer == "families" else f"a family ({importer.split('.')[1]})"
        return f"{what} imports the core and itself only, not {describe(imported)}"
    return f"the {importer} room imports the core and itself only, not {describe(imported)}"


def describe(a_room: str) -> str:
    if a_room == "top":
        return "the top level (an upward import)"
    if a_room.startswith("families."):
        return f"the {a_room.split('.')[1]} family (a sibling import)"
    return f"the {a_room} room"


def room_violations(modules: dict[str, Path], root: Path = ROOT) -> list[str]:
    """Every import of a package module that crosses the rooms the wrong way, as
    'file:line imports module: why'."""
    wrong = []
    for name, path in modules.items():
        for imported, line in imports(path, name, modules):
            if imported.split(".")[0] != "hdreport":
                continue
            why = allowed(room(name), room(imported))
            if why:
                wrong.append(f"{path.relative_to(root)}:{line} imports {imported}: {why}")
    return wrong


def graph() -> dict[str, set[str]]:
    return {name: {m for m, _ in imports(path, name) if m in PACKAGE_MODULES and m != name}
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
    assert {"hdreport.core.schema", "hdreport.core.writer", "hdreport.figures", "hdreport.summary",
            "hdreport.registry", "hdreport.families.loader.figures", "hdreport.profile.model"} <= set(PACKAGE_MODULES)
    assert "pytorch_baseline" in baseline_modules()


def test_every_module_is_in_a_room():
    """A module is in core/, profile/, a family's folder or the top level: a new folder is a
    new room, and this test the place to say what it may import."""
    known = {"core", "profile", "families"}
    stray = [str(p.relative_to(ROOT)) for p in PACKAGE_MODULES.values()
             if len(p.relative_to(PACKAGE).parts) > 1 and p.relative_to(PACKAGE).parts[0] not in known]
    stray += [str(p.relative_to(ROOT)) for p in PACKAGE_MODULES.values()
              if p.relative_to(PACKAGE).parts[0] == "families" and len(p.relative_to(PACKAGE).parts) > 3]
    assert not stray, "modules outside the rooms (core/, profile/, families/<family>/, the top level): " + \
        ", ".join(stray)


def test_the_rooms_import_only_what_they_may():
    wrong = room_violations(PACKAGE_MODULES)
    assert not wrong, "imports across the rooms of tools/hdreport (see its __init__.py): " + "; ".join(wrong)


def test_the_room_check_sees_a_sibling_and_an_upward_import(tmp_path):
    """The check itself, on a made-up package: a family importing another, the core importing
    the top level, and a family importing the profile room each fail with the file and the
    import; a family importing itself and the core, and the top level importing all, pass."""
    files = {
        "__init__.py": "",
        "summary.py": "from hdreport.families.b import summary\nfrom hdreport import profile\n",
        "core/__init__.py": "", "core/style.py": "import math\n",
        "core/facets.py": "from hdreport import summary\n",
        "profile/__init__.py": "", "profile/model.py": "from hdreport.core import style\n",
        "families/__init__.py": "",
        "families/a/__init__.py": "from hdreport.families.a import figures, summary\n",
        "families/a/figures.py": "from hdreport.core.style import pi\nfrom . import summary\n",
        "families/a/summary.py": "from hdreport.families.b.figures import BANDWIDTH\n",
        "families/b/__init__.py": "", "families/b/figures.py": "from ...profile import model\n",
        "families/b/summary.py": "from hdreport.families.b import figures\n",
    }
    for name, text in files.items():
        (tmp_path / "hdreport" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "hdreport" / name).write_text(text)
    wrong = room_violations(package_modules(tmp_path / "hdreport"), root=tmp_path)
    assert wrong == [
        "hdreport/core/facets.py:1 imports hdreport.summary: the core imports only the core, not the top level "
        "(an upward import)",
        "hdreport/families/a/summary.py:1 imports hdreport.families.b.figures: a family (a) imports the core and "
        "itself only, not the b family (a sibling import)",
        "hdreport/families/b/figures.py:1 imports hdreport.profile.model: a family (b) imports the core and itself "
        "only, not the profile room",
    ]


def test_the_cycle_check_sees_a_cycle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycle():
    found = cycle(graph())
    assert not found, "import cycle in tools/hdreport: " + " -> ".join(found)


def test_the_package_imports_only_the_standard_library_matplotlib_and_numpy():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m}" for name, path in PACKAGE_MODULES.items()
             for m, line in imports(path, name) if m and m.split(".")[0] != "hdreport"
             and m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] not in THIRD_PARTY]
    assert not wrong, "the report package imports a library it may not: " + "; ".join(wrong)


def test_the_package_never_imports_its_command_lines_or_the_baselines():
    upward = {*CLIS, *baseline_modules()}
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m}" for name, path in PACKAGE_MODULES.items()
             for m, line in imports(path, name) if m.split(".")[0] in upward]
    assert not wrong, "the report package imports upward: " + "; ".join(wrong)


def test_the_command_lines_import_no_family():
    """They parse arguments and call into the package; what a family does is the package's."""
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m}" for path in CLIS.values()
             for m, line in imports(path) if m.startswith("hdreport.families")]
    assert not wrong, "a command line reaches into a family (move that into the package): " + "; ".join(wrong)


def test_the_baselines_use_the_package_only_through_its_writer():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m}" for path in baseline_modules().values()
             for m, line in imports(path) if m.split(".")[0] in {"hdreport", *CLIS} and m != WRITER]
    assert not wrong, f"a baseline reaches past {WRITER}: " + "; ".join(wrong)


def test_no_package_module_edits_sys_path():
    wrong = []
    for path in PACKAGE_MODULES.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "path" and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not wrong, "sys.path used in the report package (import it by its name instead): " + ", ".join(wrong)


def test_importing_the_package_imports_no_heavy_library():
    wrong = [f"{path.relative_to(ROOT)}:{line} imports {m} at module level"
             for name, path in PACKAGE_MODULES.items()
             for m, line in imports(path, name, top_level_only=True) if m.split(".")[0] in HEAVY]
    assert not wrong, "import these where a figure is drawn: " + "; ".join(wrong)
