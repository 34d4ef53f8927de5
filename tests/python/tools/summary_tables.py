"""The summary's Markdown tables as the tests read them: rows of {header: cell}, whichever
columns a table said once above itself instead of on every row."""

from __future__ import annotations

SAID_ONCE = "On every row: "


def tables_of(text: str) -> list[list[dict]]:
    """Each Markdown table of a text as rows of {header: cell}, with the values said once above it
    ("On every row: optimizer = sgd; …") put back in every row: what a row says, wherever the table says it."""
    tables, said, lines, i = [], {}, text.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith(SAID_ONCE):
            said = dict(part.split(" = ", 1) for part in lines[i][len(SAID_ONCE):-1].split("; "))
        elif lines[i].startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            tables.append([{**said, **dict(zip(block[0], row))} for row in block[2:]])
            said = {}
            continue
        i += 1
    return tables


def cannot_answer(text: str, question: str) -> str | None:
    """Why the page cannot answer `question` (its line in the one section of such questions,
    without the question), None where that section does not list it."""
    start = f"- **{question}** "
    return next((line[len(start):] for line in text.splitlines() if line.startswith(start)), None)


def unanswerable(text: str) -> list[str]:
    """The questions the page's section of those it cannot answer lists, in order."""
    return [line[4:].split("** ", 1)[0] for line in text.splitlines()
            if line.startswith("- **") and ("** No successful runs" in line or "** Its runs were skipped" in line)]
