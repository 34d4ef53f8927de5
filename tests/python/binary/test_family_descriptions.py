"""Each family described once, in C++ (lib/<area>/<family>_description.cpp), against what the
binary does and what the docs say:

- every param of every case the binary lists (`--hdbench_list_cases`, under every preset) is
  described by its family, with the value's type, and the required ones are there;
- docs/report-format.md's params and counters tables are tools/report_format_doc.py's output
  for the binary: a param or counter added or re-described without regenerating them fails;
- every family has a distinct NVTX category and colour;
- every counter of every run in the committed GPU reports (H100, H200) is described by its
  family (they come from real runs: a counter the code writes but no description names fails);
- every family has its documentation fragment (lib/<area>/<family>.doc.md), and the families'
  rows of README.md, docs/measuring.md and lib/README.md are tools/family_docs.py's output from
  those fragments, in run order: a fragment edited, or a family added, without regenerating fails.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from conftest import run_hdbench

import family_docs  # tools/family_docs.py, on the path as the report tools are
import report_format_doc  # tools/report_format_doc.py, on the path as the report tools are

SOURCE = Path(__file__).resolve().parents[3]
PAGE = SOURCE / "docs" / "report-format.md"
REGENERATE = "run tools/report_format_doc.py build/release/bin/hdbench (it rewrites docs/report-format.md)"
REGENERATE_FAMILY_DOCS = "run tools/family_docs.py build/release/bin/hdbench (it rewrites the pages it names)"
TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "integer or string": lambda v: isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)),
    "list of integers": lambda v: isinstance(v, list) and all(isinstance(i, int) for i in v),
    "integer or list of integers": lambda v: isinstance(v, int) or (isinstance(v, list)
                                                                      and all(isinstance(i, int) for i in v)),
}


@pytest.fixture(scope="module")
def families(hdbench_bin) -> dict:
    result = run_hdbench(hdbench_bin, "--hdbench_describe_families=-")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_family_is_described(families, hdbench_bin):
    help_line = next(line for line in run_hdbench(hdbench_bin, "--hdbench_help").stdout.splitlines()
                     if "--hdbench_families=" in line)
    named = re.search(r"families to run: (.*?) \(default", help_line).group(1)
    assert sorted(f.strip() for f in named.split(",")) == sorted(families)
    for name, family in families.items():
        assert family["params"], f"{name} describes no params"
        assert family["counters"], f"{name} describes no counters"
        keys = [p["key"] for p in family["params"]]
        assert len(set(keys)) == len(keys), f"{name} describes a param twice"
        counters = [c["name"] for c in family["counters"]]
        assert len(set(counters)) == len(counters), f"{name} describes a counter twice"
        for p in family["params"]:
            assert p["type"] in TYPES, f"{name}.{p['key']}: unknown type {p['type']}"
            assert p["meaning"], f"{name}.{p['key']} has no meaning"
        for c in family["counters"]:
            assert c["better"] in ("higher", "lower", "none"), f"{name}.{c['name']}"
            assert c["meaning"], f"{name}.{c['name']} has no meaning"


def test_nvtx_categories_and_colours_are_distinct(families):
    ids = [f["nvtx"]["category"] for f in families.values()]
    colours = [f["nvtx"]["colour"] for f in families.values()]
    assert len(set(ids)) == len(ids)
    assert len(set(colours)) == len(colours)
    for name, f in families.items():
        assert f["nvtx"]["name"] == name


@pytest.mark.parametrize("preset", ["quick", "default", "full"])
def test_every_listed_param_is_described_with_its_type(families, hdbench_bin, preset):
    result = run_hdbench(hdbench_bin, f"--hdbench_preset={preset}", "--hdbench_list_cases=-")
    assert result.returncode == 0, result.stderr
    problems = []
    for case in json.loads(result.stdout):
        params = case["params"]
        family = families[params["family"]]
        kind = params.get(family["kind_param"])
        described_params = {p["key"]: p for p in family["params"]}
        for key, value in params.items():
            if key == "family":
                continue
            described = described_params.get(key)
            if described is None:
                problems.append(f"{case['name']}: param {key} is not described by {params['family']}")
            elif not TYPES[described["type"]](value):
                problems.append(f"{case['name']}: {key}={value!r} is not {described['type']}")
        for described in family["params"]:
            if ("*" in described["required"] or kind in described["required"]) and described["key"] not in params:
                problems.append(f"{case['name']}: required param {described['key']} missing")
    assert not problems, "\n".join(problems[:20])


def test_the_docs_tables_are_generated_from_the_descriptions(families):
    page = PAGE.read_text(encoding="utf-8")
    generated = report_format_doc.section(families)
    assert report_format_doc.replace_section(page, generated) == page, REGENERATE


def test_every_family_has_its_doc_fragment(families, hdbench_bin):
    order = family_docs.run_order(str(hdbench_bin))
    assert sorted(order) == sorted(families)
    missing = [name for name in order if not list((SOURCE / "lib").glob(f"*/{name}.doc.md"))]
    assert not missing, (f"no lib/<area>/<family>.doc.md for {', '.join(missing)}: write one "
                         "(lib/README.md, \"Adding a family\"), then " + REGENERATE_FAMILY_DOCS)


def test_the_families_rows_are_generated_from_their_fragments(hdbench_bin):
    pages = family_docs.generate(SOURCE, family_docs.run_order(str(hdbench_bin)))
    drifted = [page for page, text in pages.items() if (SOURCE / page).read_text(encoding="utf-8") != text]
    assert not drifted, f"not what the families' fragments give: {', '.join(drifted)}; " + REGENERATE_FAMILY_DOCS


def _counter_patterns(family: dict) -> list[re.Pattern]:
    """A described counter as a pattern: `<N>`, `<T>` and the like stand for a number."""
    return [re.compile(re.sub(r"<[A-Za-z]+>", "[0-9]+", re.escape(c["name"])) + r"\Z") for c in family["counters"]]


# Schema 2 reports of GPU machines (schema 1 wrote counters since renamed, e.g. fraction_of_fp32_peak).
def _read(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


GPU_REPORTS = [p for p in sorted([*(SOURCE / "reports" / "reference").glob("h[12]00-2026-11-2*/*.json"),
                                  *(SOURCE / "reports" / "reference").glob("h[12]00-2026-11-2*/logs/*.json.gz"),
                                  *(SOURCE / "tests" / "python" / "fixtures").glob("h[12]00-2026-11-2*/*.json")])
               if _read(p).get("context", {}).get("hdbench", {}).get("schema_version", 1) >= 2]


@pytest.mark.parametrize("report", GPU_REPORTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_counter_of_the_gpu_reports_is_described(families, report):
    data = _read(report)
    patterns = {name: _counter_patterns(f) for name, f in families.items()}
    missing: dict[str, set] = {}
    for b in data.get("benchmarks", []):
        family = b.get("params", {}).get("family")
        if b.get("status") != "ok" or family not in families or b.get("params", {}).get("implementation") == "pytorch":
            continue
        for counter in b.get("counters", {}):
            if not any(p.match(counter) for p in patterns[family]):
                missing.setdefault(family, set()).add(counter)
    assert not missing, "; ".join(f"{f}: {sorted(c)}" for f, c in missing.items())
