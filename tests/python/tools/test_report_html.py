"""`hdbench_report.py html`: one self-contained page from the H100 fixtures, opened in
a real browser (headless Chromium): no script errors, every figure rendered with a
size, a screenshot taken; and the tools' one-line answer to a missing matplotlib."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPORT_TOOL, run_report_tool

FIXTURES = Path(__file__).parent.parent / "fixtures" / "h100-2026-11-22"
REPORTS = ["transfer", "streams", "loader", "mlp", "pytorch", "cpu_vs_gpu"]

# Injected into a copy of the page: records script errors and each figure's rendered size.
PROBE = """<script>window.__errors=[];window.addEventListener("error",function(e){window.__errors.push(String(e.message||e));},true);
window.addEventListener("load",function(){var figs=[].map.call(document.querySelectorAll("figure"),function(f){
var s=f.querySelector("svg");var r=s?s.getBoundingClientRect():{width:0,height:0};return {id:f.id,w:r.width,h:r.height};});
var p=document.createElement("pre");p.id="hdbench-probe";p.textContent=JSON.stringify({errors:window.__errors,figures:figs});
document.body.appendChild(p);});</script>"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("html") / "page.html"
    result = run_report_tool("html", *[FIXTURES / f"{n}.json" for n in REPORTS], "-o", out)
    assert result.returncode == 0, result.stderr
    return out, out.read_text()


def test_the_page_is_self_contained(page):
    _, text = page
    assert "<script" not in text and "<link" not in text and "@import" not in text and "<img" not in text
    for attr in re.findall(r'(?:src|href)\s*=\s*["\']([^"\']*)', text):
        # Links within the page, and the heat maps' pixels inlined as data: nothing is fetched.
        assert attr.startswith("#") or attr.startswith("data:image/png;base64,"), attr[:80]
    assert not re.search(r"url\((?!#)", text)


def test_every_question_links_to_its_figures_and_back(page):
    _, text = page
    figures = re.findall(r"<figure id='([^']+)'>", text)
    assert len(figures) > 20 and len(set(figures)) == len(figures)
    ids = set(re.findall(r"""id=['"]([^'"]+)['"]""", text))
    for target in re.findall(r"href='#([^']+)'", text):
        assert target in ids, target
    for section in re.findall(r"<section id='q-[^']+'>.*?</section>", text, re.S):
        for fig in re.findall(r"<figure id='([^']+)'>", section):
            assert f"href='#{fig}'" in section  # the question links to its figure
    assert text.count("↑ ") == len(figures)  # and each figure back to its question
    # These reports predate the dataparallel family: that question alone is listed as one they cannot answer.
    folded = re.search(r"<section id='cannot-answer'>.*?</section>", text, re.S).group(0)
    assert folded.count("<li>") == 1 and "No successful runs of the <code>dataparallel</code> family" in folded
    assert "NVIDIA H100 80GB HBM3" in text and "PCIe Gen5 x16" in text  # the machine
    assert "the loss is not finite" in text  # the failure is listed


def test_the_page_opens_with_the_answers_and_carries_the_noise_warning(page):
    """The H100 fixtures: the title names the machine by its GPU and CPU; the four questions' answers
    and hdbench beside PyTorch come first (before the machine table), each linking to its section; the summary's warnings are on the page
    too (it used to drop them)."""
    _, text = page
    assert "<h1>hdbench: NVIDIA H100 80GB HBM3 + Intel(R) Xeon(R) Processor</h1>" in text
    first_table = text.index("<table>")
    assert first_table < text.index("id=machine")
    answers = text[first_table:text.index("</table>", first_table)]
    assert [re.sub("<[^>]+>", "", row) for row in re.findall(r"<tr><td>(.*?)</td>", answers)] == [
        "Pinned vs pageable memory", "Async copy/compute overlap", "Batch size and loader workers",
        "GPU vs CPU training step", "hdbench vs PyTorch training step"]
    links = re.findall(r"href='#([^']+)'>detail<", answers)
    assert len(links) == 5 and all(f"id='{link}'" in text for link in links)
    assert "id=noise" not in text  # these reports predate the stopping rule: no noise figures to warn of


def test_the_page_carries_the_noise_warning_of_the_summary(tmp_path):
    """The H100 default run of 2026-11-23: 109 runs stopped at the sampling timeout (100 above their noise target,
    9 more with too few samples to confirm it: not settled either, issue 39); the page says so
    by family, before the machine table, and its headlines say which answers rest on noisy runs."""
    pytest.importorskip("matplotlib")
    out = tmp_path / "page.html"
    source = Path(__file__).resolve().parents[3] / "reports" / "reference" / "h100-2026-11-23b" / "default-h100.json"
    result = run_report_tool("html", source, "-o", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    noise = text[text.index("<section id=noise>"):text.index("id=machine")]
    assert "109 runs stopped at the sampling timeout (<code>--hdbench_max_seconds</code>) before the stopping rule " \
        "was met" in noise
    assert "<td><code>mlp/epoch/cpu</code></td><td class=num>6</td><td class=num><strong>6</strong></td>" in noise
    answers = text[text.index("<table>"):text.index("</table>")]
    assert answers.count("<strong>noisy</strong>") == 3  # pinned vs pageable, batch and workers, GPU vs CPU


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip("no chromium: tools/install_deps.sh installs Debian's `chromium`")


def browser(*args, timeout=180) -> subprocess.CompletedProcess:
    return subprocess.run([chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                           "--virtual-time-budget=10000", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_chromium_renders_every_figure_without_script_errors(page, tmp_path):
    path, text = page
    probed = tmp_path / "probed.html"
    probed.write_text(text.replace("<head>", "<head>" + PROBE, 1))
    result = browser("--dump-dom", probed.as_uri())
    found = re.search(r'<pre id="hdbench-probe">(.*?)</pre>', result.stdout, re.S)
    assert found, result.stderr[-2000:]
    probe = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert probe["errors"] == []
    want = re.findall(r"<figure id='([^']+)'>", text)
    assert [f["id"] for f in probe["figures"]] == want
    for f in probe["figures"]:
        assert f["w"] > 100 and f["h"] > 100, f


def test_chromium_takes_a_screenshot_of_the_page(page, tmp_path):
    path, _ = page
    shot = tmp_path / "page.png"
    browser("--window-size=1280,2400", f"--screenshot={shot}", path.as_uri())
    assert shot.stat().st_size > 10_000
    import matplotlib.image

    pixels = matplotlib.image.imread(str(shot))
    assert pixels.shape[:2] == (2400, 1280) and pixels.std() > 0.05  # not a blank page


def test_a_missing_matplotlib_is_one_line_naming_what_to_run(tmp_path):
    broken = tmp_path / "site" / "matplotlib"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError(\"No module named 'matplotlib'\")\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "HDBENCH_REPORT_PYTHONS": ""}
    for command in ("plot", "html"):
        result = subprocess.run([sys.executable, str(REPORT_TOOL), command, str(FIXTURES / "loader.json"), "-o",
                                 str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=60)
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert "needs matplotlib" in result.stderr and "-m pip install matplotlib" in result.stderr
    # summarize needs no matplotlib.
    result = subprocess.run([sys.executable, str(REPORT_TOOL), "summarize", str(FIXTURES / "loader.json")],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0 and "## How many loader workers" in result.stdout


def test_the_python3_a_user_types_draws_the_figures(tmp_path):
    """Under an interpreter without matplotlib (a pyenv's `python3` on PATH, say; here a bare
    venv first on PATH), the tool runs itself under one that has it (this one); executed
    directly (its #! line) as well."""
    pytest.importorskip("matplotlib", reason="this Python has no matplotlib to fall back to")
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--copies", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python3")
    assert subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode != 0
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "HDBENCH_REPORT_PYTHONS": sys.executable}
    for argv in ([python, str(REPORT_TOOL)], [str(REPORT_TOOL)]):
        out = tmp_path / f"fig{len(argv)}"
        result = subprocess.run([*argv, "plot", str(FIXTURES / "loader-workers-2-16.json"), "-o", str(out)],
                                capture_output=True, text=True, timeout=300, env=env)
        assert result.returncode == 0, result.stderr
        assert (out / "loader_pinning.png").exists() or any(out.glob("loader--*.png"))
