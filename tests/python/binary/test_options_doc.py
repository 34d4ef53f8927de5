"""The documentation against the binary and the tree it describes.

- docs/options.md is tools/options_doc.sh's output for the binary under test
  (HDBENCH_BIN): a flag added, renamed or re-described without regenerating it fails.
- Every --hdbench_* flag README.md, docs/*.md and reports/README.md name exists in
  --hdbench_help, or is one of hdbench_profile's own flags (PROFILE_FLAGS).
- Every relative link in them points at a file or folder of the repository, and the
  README links nothing outside it but http(s) addresses.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

import hdbench_profile  # tools/hdbench_profile.py, on the path by conftest.py as the report tools are

SOURCE = Path(os.environ.get("HDBENCH_SOURCE_DIR", Path(__file__).resolve().parents[3])).resolve()
GENERATOR = SOURCE / "tools" / "options_doc.sh"
OPTIONS_PAGE = SOURCE / "docs" / "options.md"
REGENERATE = "run tools/options_doc.sh build/release/bin/hdbench (it rewrites docs/options.md) and commit the page"

FLAG = re.compile(r"--hdbench_[a-z0-9_]+")
FLAG_OR_PREFIX = re.compile(r"--hdbench_[a-z0-9_]+\*?")
# hdbench_profile's flags (docs/profiling.md, "Profiling your own program"), as its command
# line (tools/hdbench_profile.py) parses them: its own, so --hdbench_help lists only those it
# shares with hdbench. A flag of neither is still refused.
PROFILE_FLAGS = {f"--hdbench_{name}" for name in hdbench_profile.FLAGS}
# [text](target) and ![alt](target); the target ends at whitespace or the closing parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def doc_pages() -> list[Path]:
    return [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md")), SOURCE / "reports" / "README.md"]


def without_code_blocks(text: str) -> str:
    """Markdown outside ``` fences (links inside code are not links)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def binary() -> Path:
    path = os.environ.get("HDBENCH_BIN")
    if not path:
        pytest.skip("HDBENCH_BIN is not set; run these tests through ctest")
    return Path(path)


def help_text(hdbench: Path) -> str:
    result = subprocess.run([str(hdbench), "--hdbench_help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_options_page_matches_the_binary():
    hdbench = binary()
    result = subprocess.run([str(GENERATOR), str(hdbench), "-"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    committed = OPTIONS_PAGE.read_text(encoding="utf-8") if OPTIONS_PAGE.exists() else ""
    if result.stdout != committed:
        import difflib

        diff = "".join(difflib.unified_diff(committed.splitlines(True), result.stdout.splitlines(True),
                                            "docs/options.md (committed)", "from --hdbench_help", n=1))
        pytest.fail(f"docs/options.md is out of date: {REGENERATE}\n{diff[:4000]}")


def test_options_page_holds_the_whole_help():
    hdbench = binary()
    page = OPTIONS_PAGE.read_text(encoding="utf-8")
    assert help_text(hdbench).strip() in page, f"docs/options.md lacks part of --hdbench_help: {REGENERATE}"


def test_every_flag_the_docs_name_exists():
    # Against the binary when there is one; else against the committed options page,
    # which the test above keeps equal to the binary's help.
    path = os.environ.get("HDBENCH_BIN")
    known_text = help_text(Path(path)) if path else OPTIONS_PAGE.read_text(encoding="utf-8")
    known = set(FLAG.findall(known_text))
    assert "--hdbench_help" in known and len(known) > 20, "could not read the flag list"
    known |= PROFILE_FLAGS
    unknown = []
    for page in doc_pages():
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for match in FLAG_OR_PREFIX.finditer(line):
                flag = match.group(0)
                # `--hdbench_dp_*` names a group of flags: some flag must start with it.
                found = any(k.startswith(flag[:-1]) for k in known) if flag.endswith("*") else flag in known
                if not found:
                    unknown.append(f"{page.relative_to(SOURCE)}:{number}: {flag}")
    assert not unknown, ("flags the docs name but neither --hdbench_help nor hdbench_profile's PROFILE_FLAGS "
                         "list:\n" + "\n".join(unknown))


def test_relative_links_resolve():
    broken = []
    for page in doc_pages():
        for target in LINK.findall(without_code_blocks(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue  # an address (http:, mailto:) or an anchor in the same page
            file_part = unquote(target.split("#", 1)[0])
            resolved = (page.parent / file_part).resolve()
            if not resolved.exists():
                broken.append(f"{page.relative_to(SOURCE)}: {target}")
            elif not resolved.is_relative_to(SOURCE):
                broken.append(f"{page.relative_to(SOURCE)}: {target} (outside the repository)")
    assert not broken, "links that point at no file of the repository:\n" + "\n".join(broken)


def test_readme_links_only_the_repository_and_the_web():
    text = (SOURCE / "README.md").read_text(encoding="utf-8")
    outside = []
    for target in LINK.findall(without_code_blocks(text)):
        if re.match(r"https?://", target):
            continue
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
            outside.append(target)  # file:, ftp:, ...
            continue
        if not (SOURCE / unquote(target.split("#", 1)[0])).resolve().is_relative_to(SOURCE):
            outside.append(target)
    # A path outside the checkout named in prose or code (e.g. ../shared/DESIGN.md) is no link but misleads as much.
    outside += re.findall(r"(?<![\w.])\.\./[\w./-]+", text)
    assert not outside, "README.md points outside the repository: " + ", ".join(outside)
