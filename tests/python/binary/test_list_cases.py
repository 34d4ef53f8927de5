"""--hdbench_list_cases: every case's name and params without running, and the names
agreeing with the params they are built from (lib/core/case_id.hpp)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_hdbench

SIZE = re.compile(r"^(\d+)(B|KiB|MiB|GiB)$")
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def listed(hdbench_bin, *args):
    result = run_hdbench(hdbench_bin, "--hdbench_list_cases=-", "--hdbench_seed=7", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("preset", ["quick", "default", "full"])
def test_every_case_is_listed_once_and_its_name_agrees_with_its_params(hdbench_bin, preset):
    cases = listed(hdbench_bin, f"--hdbench_preset={preset}")
    names = [c["name"] for c in cases]
    assert names and len(names) == len(set(names))
    for c in cases:
        name, params = c["name"], c["params"]
        parts = name.split("/")
        assert parts[0] == params["family"], name
        for part in parts[1:]:
            label, sep, value = part.partition(":")
            if sep and label in params and not isinstance(params[label], (list, dict)):
                assert str(params[label]).lower() == value.lower(), (name, label, params[label])
            m = SIZE.match(part)
            if m and "bytes" in params and not sep:
                assert params["bytes"] == int(m.group(1)) * UNITS[m.group(2)], (name, params["bytes"])
        if "skip_reason" in c:
            assert c["skip_reason"].strip(), name


def test_listing_runs_nothing_and_writes_no_report(hdbench_bin, tmp_path):
    out = tmp_path / "cases.json"
    result = run_hdbench(hdbench_bin, f"--hdbench_list_cases={out}", "--hdbench_preset=quick",
                         f"--hdbench_out={tmp_path / 'report.json'}")
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text()) and not (tmp_path / "report.json").exists()
    assert "Preset" not in result.stdout  # no run plan: nothing ran


def test_listing_follows_the_family_and_axis_flags(hdbench_bin):
    cases = listed(hdbench_bin, "--hdbench_families=host_memcpy", "--hdbench_sizes=4K", "--hdbench_memcpy_threads=1,2")
    assert [c["name"] for c in cases] == ["host_memcpy/threads:1/4KiB", "host_memcpy/threads:2/4KiB"]


@pytest.mark.parametrize("value", ["", "a folder"])
def test_a_bad_listing_path_is_a_usage_error(hdbench_bin, tmp_path, value):
    path = str(tmp_path) if value == "a folder" else value
    result = run_hdbench(hdbench_bin, f"--hdbench_list_cases={path}", "--hdbench_preset=quick")
    assert result.returncode == 2, result.stderr
    assert "--hdbench_list_cases" in result.stderr


def test_cpu_steps_beside_busy_threads_are_cases_of_their_own(hdbench_bin):
    cases = listed(hdbench_bin, "--hdbench_families=mlp", "--hdbench_mlp_processors=cpu",
                   "--hdbench_mlp_models=784x32x10", "--hdbench_mlp_batches=128", "--hdbench_mlp_threads=1,2",
                   "--hdbench_mlp_cpu_busy_threads=0,1")
    steps = [c for c in cases if c["params"].get("variant") == "step"]
    busy = {(c["params"]["threads"], c["params"].get("busy_threads", 0)) for c in steps}
    assert busy == {(1, 0), (2, 0), (1, 1), (2, 1)}
    assert all(c["name"].endswith("/busy:1") for c in steps if c["params"].get("busy_threads"))


def test_the_default_presets_costed_loader_epochs_take_one_pinning(hdbench_bin):
    # A costed epoch is bound by building batches: pinning is answered by the cost-0 cases,
    # so the default preset runs costed GPU-fed epochs with the pin thread only (issue 39:
    # they took ~40 s of an H200's default run); the full preset and a given list keep all.
    def costed_gpu_pinnings(*args):
        cases = listed(hdbench_bin, "--hdbench_families=loader", *args)
        return {c["params"]["pinning"] for c in cases
                if c["params"]["consumer"] == "gpu" and c["params"]["sample_cost_us"] > 0}

    def zero_cost_gpu_pinnings(*args):
        cases = listed(hdbench_bin, "--hdbench_families=loader", *args)
        return {c["params"]["pinning"] for c in cases
                if c["params"]["consumer"] == "gpu" and c["params"]["sample_cost_us"] == 0}

    assert costed_gpu_pinnings() == {"pin_thread"}
    assert zero_cost_gpu_pinnings() == {"pageable", "pin_thread", "direct"}
    assert costed_gpu_pinnings("--hdbench_preset=full") == {"pageable", "pin_thread", "direct"}
    assert costed_gpu_pinnings("--hdbench_loader_pinning=pageable,direct") == {"pageable", "direct"}
