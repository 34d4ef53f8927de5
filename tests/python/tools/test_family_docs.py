"""tools/family_docs.py on a copy of the pages and fragments: a family added with its fragment
alone lands in every page it names, in its run-order place; one without a fragment, a fragment
of no family or an area without its folder-map line stops it with the reason. (Whether the
committed pages are its output: tests/python/binary/test_family_descriptions.py.)"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import family_docs  # tools/family_docs.py, on the path as the report tools are

SOURCE = Path(__file__).resolve().parents[3]
ORDER = ["transfer", "pinning", "staged", "host_memcpy", "device_local", "latency", "managed", "batch_copy",
         "strided", "streams", "loader", "mlp", "dataparallel", "p2p"]
WIDGET = """# `widget`

## README.md: what runs

widgets moved
one way

## README.md: what it answers

what a widget costs

## docs/measuring.md: benchmarks

every widget

## docs/measuring.md: answers

widget GB/s

## docs/measuring.md: quick preset

one widget

## lib/README.md: folder map

family widget: the widget
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for page in {page for page, _, _ in family_docs.REGIONS}:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SOURCE / page, tmp_path / page)
    for fragment in (SOURCE / "lib").glob("*/*.doc.md"):
        (tmp_path / fragment.relative_to(SOURCE)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(fragment, tmp_path / fragment.relative_to(SOURCE))
    return tmp_path


def test_the_committed_fragments_give_the_committed_pages(tree):
    # ORDER is hdbench's run order today; the binary test reads it from hdbench itself.
    assert family_docs.generate(tree, ORDER) == {page: (SOURCE / page).read_text(encoding="utf-8")
                                                 for page, _, _ in family_docs.REGIONS}


def test_a_family_added_by_its_fragment_lands_in_every_page(tree):
    (tree / "lib" / "widget").mkdir()
    (tree / "lib" / "widget" / "widget.doc.md").write_text(WIDGET, encoding="utf-8")
    pages = family_docs.generate(tree, [*ORDER[:9], "widget", *ORDER[9:]])  # after strided
    readme = pages["README.md"]
    assert "| `widget` | widgets moved one way | what a widget costs |\n| `streams` |" in readme
    measuring = pages["docs/measuring.md"]
    assert "| `widget` | every widget | widget GB/s |\n| `streams` |" in measuring
    assert "strided slices of a 1024x1024 matrix; one widget; streams 4 MiB" in measuring
    assert "strided slices of a 4096x4096 matrix; streams 64 MiB" in measuring  # no default part: nothing
    assert "\nlib/widget/     family widget: the widget\nlib/streams/ " in pages["lib/README.md"]
    for page, text in pages.items():  # nothing else changed: lines added for widget, the quick row rewritten
        old, new = (SOURCE / page).read_text(encoding="utf-8").splitlines(), text.splitlines()
        assert all("widget" in line for line in set(new) - set(old)), page
        assert [line[:10] for line in set(old) - set(new)] == (["| `quick` "] if page == "docs/measuring.md" else [])
        assert len(new) == len(old) + 1, page  # its row, or its line


@pytest.mark.parametrize("change, reason", [
    (lambda tree: (tree / "lib" / "strided" / "strided.doc.md").unlink(), "no lib/<area>/<family>.doc.md for strided"),
    (lambda tree: (tree / "lib" / "strided" / "stray.doc.md").write_text(WIDGET), "fragments of no family"),
    (lambda tree: (tree / "lib" / "transfer" / "pinning.doc.md").write_text(WIDGET.replace("widget", "pinning")),
     "lib/transfer/: 2 fragments give"),
    (lambda tree: (tree / "lib" / "latency" / "latency.doc.md").write_text("## README.md: what runs\n\nx\n"),
     "no section"),
    (lambda tree: (tree / "lib" / "latency" / "latency.doc.md").write_text(WIDGET + "## README: what runs\n"),
     "unknown section"),
])
def test_a_broken_fragment_stops_it_with_the_reason(tree, change, reason):
    change(tree)
    with pytest.raises(ValueError, match=re.escape(reason)):
        family_docs.generate(tree, ORDER)
