"""CUDA calls that race with hdbench's non-blocking streams, kept out of the code.

A plain cudaMemset runs on the legacy default stream and may return before it lands;
a plain host-to-device cudaMemcpy from pageable memory may return once the bytes are
staged, before the DMA lands. Work queued next on a non-blocking stream does not wait
for either, so the fill or copy can land after (and over) that work. On an H100 under
compute-sanitizer this corrupted StagedCopy's test data (2026-11-23). lib/core/cuda.hpp
offers fill_device_bytes and upload_bytes, which wait; the stream pipeline's `sync` API
times cudaMemcpy itself and passes its kind as a variable, so it is not matched."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SOURCES = (".cpp", ".hpp", ".cu", ".cuh")
# A source check: it runs in a checkout (CI), not in a GPU bundle, which carries no sources.
pytestmark = pytest.mark.skipif(not (ROOT / "kernels").is_dir(), reason=f"no source tree at {ROOT} (a bundle)")
AREAS = ("lib", "bench", "kernels", "tests")
ALLOWED = {Path("lib/core/cuda.cpp"), Path("lib/core/cuda.hpp")}
MEMSET = re.compile(r"\bcudaMemset\s*\(")
UPLOAD = re.compile(r"\bcudaMemcpy\s*\((?:[^;])*?cudaMemcpyHostToDevice\s*\)", re.S)


def racing_calls(root: Path = ROOT) -> list[str]:
    """Every plain cudaMemset and host-to-device cudaMemcpy, as 'file:line: call'."""
    found = []
    for area in AREAS:
        for path in sorted((root / area).rglob("*")):
            rel = path.relative_to(root)
            if path.suffix not in SOURCES or rel in ALLOWED:
                continue
            text = path.read_text()
            for pattern, what in ((MEMSET, "cudaMemset"), (UPLOAD, "host-to-device cudaMemcpy")):
                for match in pattern.finditer(text):
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(f"{rel}:{line}: {what} (use fill_device_bytes / upload_bytes, or the Async call on the buffer's stream)")
    return found


def test_no_code_fills_or_uploads_on_the_legacy_stream_without_waiting():
    assert racing_calls() == []


def test_the_check_finds_both_calls(tmp_path):
    (tmp_path / "lib" / "x").mkdir(parents=True)
    for area in AREAS[1:]:
        (tmp_path / area).mkdir()
    (tmp_path / "lib" / "x" / "a.cpp").write_text(
        "void f() {\n  HDBENCH_CUDA_CHECK(cudaMemset(p, 0, n));\n"
        "  HDBENCH_CUDA_CHECK(cudaMemcpy(d, h,\n     n, cudaMemcpyHostToDevice));\n"
        "  HDBENCH_CUDA_CHECK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));\n"
        "  HDBENCH_CUDA_CHECK(cudaMemsetAsync(p, 0, n, s));\n}\n")
    assert [f.split(": ")[0] for f in racing_calls(tmp_path)] == ["lib/x/a.cpp:2", "lib/x/a.cpp:3"]
