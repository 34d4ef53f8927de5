"""The layering of lib/README.md ("Which way includes point"), read from the #include lines:
kernels -> lib/core -> lib/pipeline -> lib/<family> -> lib/dataparallel -> bench. The core
includes no family; a family includes the core, the shared input pipeline (pipeline) and
itself, never another family, except the areas in JOINS (dataparallel trains the mlp
model); kernels include nothing of lib/ or bench/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SOURCES = (".cpp", ".hpp", ".cu", ".cuh")
# A source check: it runs in a checkout (CI), not in a GPU bundle, which carries no sources.
pytestmark = pytest.mark.skipif(not (ROOT / "kernels").is_dir(), reason=f"no source tree at {ROOT} (a bundle)")
SHARED = {"core", "pipeline"}  # what every family may include besides itself
BELOW = {"core": set(), "pipeline": {"core"}}  # the shared areas' own allowances
JOINS = {"dataparallel": {"mlp"}}  # the family areas above another: a data-parallel step trains the mlp model


def lib_areas(root: Path = ROOT) -> set[str]:
    return {p.name for p in (root / "lib").iterdir() if p.is_dir()}


def violations(root: Path = ROOT) -> list[str]:
    """Every include that points the wrong way, as 'file: includes X (reason)'."""
    areas = lib_areas(root)
    kernels = {p.name for p in (root / "kernels").iterdir()}
    found = []
    for path in sorted((root / "lib").rglob("*")):
        if path.suffix not in SOURCES:
            continue
        area = path.relative_to(root / "lib").parts[0]
        allowed = {area} | (BELOW[area] if area in BELOW else SHARED | JOINS.get(area, set()))
        for header in INCLUDE.findall(path.read_text()):
            rel = path.relative_to(root)
            if header in kernels:
                continue
            target = header.split("/")[0] if "/" in header else None
            if target not in areas:
                found.append(f"{rel}: includes {header} (not an area header: write \"<area>/{header}\")")
            elif target not in allowed:
                kind = "the core" if area == "core" else ("a shared area" if area in BELOW else "a family")
                found.append(f"{rel}: includes {header} ({kind} may include only {sorted(allowed)})")
    for path in sorted((root / "kernels").iterdir()):
        if path.suffix not in SOURCES:
            continue
        for header in INCLUDE.findall(path.read_text()):
            if header not in kernels:
                found.append(f"{path.relative_to(root)}: includes {header} (kernels include only kernels)")
    return found


def test_every_include_points_down_the_layers():
    assert violations() == []


def test_every_area_header_included_exists():
    for path in (ROOT / "lib").rglob("*"):
        if path.suffix not in SOURCES:
            continue
        for header in INCLUDE.findall(path.read_text()):
            if "/" in header:
                assert (ROOT / "lib" / header).is_file(), f"{path}: includes missing {header}"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (tmp_path / "kernels").mkdir(exist_ok=True)
    return tmp_path


@pytest.mark.parametrize("files, culprit", [
    ({"lib/core/a.cpp": '#include "loader/l.hpp"\n', "lib/loader/l.hpp": ""}, "lib/core/a.cpp"),
    ({"lib/mlp/m.cpp": '#include "loader/l.hpp"\n', "lib/loader/l.hpp": ""}, "lib/mlp/m.cpp"),
    ({"lib/pipeline/d.cpp": '#include "mlp/m.hpp"\n', "lib/mlp/m.hpp": ""}, "lib/pipeline/d.cpp"),
    ({"lib/mlp/m.cpp": '#include "m.hpp"\n', "lib/mlp/m.hpp": ""}, "lib/mlp/m.cpp"),
    # dataparallel may include mlp, not the other way round, and no other family
    ({"lib/mlp/m.cpp": '#include "dataparallel/s.hpp"\n', "lib/dataparallel/s.hpp": ""}, "lib/mlp/m.cpp"),
    ({"lib/dataparallel/s.cpp": '#include "loader/l.hpp"\n', "lib/loader/l.hpp": ""}, "lib/dataparallel/s.cpp"),
])
def test_the_check_catches_a_family_including_another(tmp_path, files, culprit):
    found = violations(_tree(tmp_path, files))
    assert len(found) == 1 and found[0].startswith(culprit), found


def test_the_check_allows_core_pipeline_and_own_folder(tmp_path):
    root = _tree(tmp_path, {
        "lib/core/c.hpp": "", "lib/pipeline/d.hpp": '#include "core/c.hpp"\n',
        "lib/mlp/m.cpp": '#include "core/c.hpp"\n#include "pipeline/d.hpp"\n#include "mlp/m.hpp"\n',
        "lib/mlp/m.hpp": "",
        "lib/dataparallel/s.cpp": '#include "mlp/m.hpp"\n#include "dataparallel/s.hpp"\n', "lib/dataparallel/s.hpp": "",
    })
    assert violations(root) == []
