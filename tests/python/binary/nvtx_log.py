"""Parse the NVTX capture log written by tests/nvtx/capture_injection.cpp.

Run a process with
    NVTX_INJECTION64_PATH=<build>/tests/libnvtx_capture.so
    HDBENCH_NVTX_CAPTURE=<log file>
and every NVTX event it emits is appended to the log, one tab-separated line each
(tabs and newlines inside fields were replaced by spaces):

    domain    <domain>
    category  <domain> <id> <name>
    push      <domain> <os tid> <category> <color> <payload> <message>
    pop       <domain> <os tid>
    thread    <os tid> <name>
    stream    <name>

<domain> is "<default>" for the non-domain API. <color> is 8 uppercase hex digits
(ARGB) or "-" when the range has no ARGB colour; <payload> is an unsigned decimal
for a uint64 payload, "-" otherwise; <category> is 0 when none.

    records = nvtx_log.load(path)
    assert nvtx_log.check_nesting(records) == []
    for r in nvtx_log.ranges(records):          # "hdbench" domain by default
        print(r.name, r.category, hex(r.color), r.payload, r.tid, r.depth)

The log is appended to, never truncated: give each run a fresh file, or pass
the byte offset where the file ended before the run to load(path, offset).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Optional, Union

DEFAULT_DOMAIN = "<default>"
HDBENCH_DOMAIN = "hdbench"

KINDS = ("domain", "category", "push", "pop", "thread", "stream")
_FIELD_COUNTS = {"domain": 2, "category": 4, "push": 7, "pop": 3, "thread": 3, "stream": 2}


@dataclass(frozen=True)
class Record:
    """One log line. Fields a kind does not have are None.

    domain:   domain, category, push, pop
    tid:      push, pop, thread
    category: category (the id named), push
    color:    push (int ARGB, or None without an ARGB colour)
    payload:  push (int, or None when not a uint64 payload)
    name:     domain (its name), category, push (the message), thread, stream
    line:     1-based line number in what was parsed
    """

    kind: str
    line: int
    domain: Optional[str] = None
    tid: Optional[int] = None
    category: Optional[int] = None
    color: Optional[int] = None
    payload: Optional[int] = None
    name: Optional[str] = None


@dataclass(frozen=True)
class Range:
    """A pushed range that was popped. depth is 0 for an outermost range."""

    name: str
    category: int
    color: Optional[int]
    payload: Optional[int]
    tid: int
    depth: int
    domain: str
    push_line: int
    pop_line: int


def _int(text: str, what: str, line: int, base: int = 10) -> int:
    try:
        return int(text, base)
    except ValueError:
        raise ValueError(f"line {line}: {what} is not a number: {text!r}") from None


def parse_line(text: str, line: int = 1) -> Record:
    """Parses one log line (without its newline); raises ValueError if malformed."""
    fields = text.rstrip("\r\n").split("\t")
    kind = fields[0]
    if kind not in _FIELD_COUNTS:
        raise ValueError(f"line {line}: unknown record kind {kind!r}")
    if len(fields) != _FIELD_COUNTS[kind]:
        raise ValueError(
            f"line {line}: {kind} needs {_FIELD_COUNTS[kind]} fields, got {len(fields)}: {text!r}")
    if kind == "domain":
        return Record(kind, line, domain=fields[1], name=fields[1])
    if kind == "category":
        return Record(kind, line, domain=fields[1],
                      category=_int(fields[2], "category id", line), name=fields[3])
    if kind == "push":
        _, domain, tid, category, color, payload, message = fields
        return Record(
            kind, line, domain=domain, tid=_int(tid, "tid", line),
            category=_int(category, "category", line),
            color=None if color == "-" else _int(color, "color", line, 16),
            payload=None if payload == "-" else _int(payload, "payload", line),
            name=message)
    if kind == "pop":
        return Record(kind, line, domain=fields[1], tid=_int(fields[2], "tid", line))
    if kind == "thread":
        return Record(kind, line, tid=_int(fields[1], "tid", line), name=fields[2])
    return Record(kind, line, name=fields[1])  # stream


def parse(text: Union[str, Iterable[str]]) -> list[Record]:
    """Parses a whole log, given as one string or as an iterable of lines.

    Blank lines are skipped; a malformed line raises ValueError naming it.
    """
    lines = text.splitlines() if isinstance(text, str) else text
    records = []
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\r\n")
        if line:
            records.append(parse_line(line, number))
    return records


def load(path: Union[str, os.PathLike], offset: int = 0) -> list[Record]:
    """Parses the log file at path, from byte offset on (0: the whole file).

    A missing file reads as no records: the process emitted nothing.
    """
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return []
    return parse(data.decode("utf-8", errors="replace"))


def check_nesting(records: Iterable[Record]) -> list[str]:
    """Checks that, per domain and thread, every pop closes a push and every push
    is popped. Returns one message per problem; an empty list means balanced."""
    stacks: dict[tuple[str, int], list[Record]] = {}
    problems = []
    for r in records:
        if r.kind == "push":
            stacks.setdefault((r.domain, r.tid), []).append(r)
        elif r.kind == "pop":
            stack = stacks.setdefault((r.domain, r.tid), [])
            if stack:
                stack.pop()
            else:
                problems.append(
                    f"line {r.line}: pop in domain {r.domain!r} on tid {r.tid} "
                    "without an open range")
    for (domain, tid), stack in stacks.items():
        for r in stack:
            problems.append(
                f"line {r.line}: range {r.name!r} in domain {domain!r} on tid {tid} "
                "is never popped")
    return problems


def ranges(records: Iterable[Record], domain: Optional[str] = HDBENCH_DOMAIN) -> list[Range]:
    """Completed (pushed and popped) ranges of a domain (None: every domain), in
    the order they were pushed. Unmatched pushes and pops are left out; see
    check_nesting for those."""
    stacks: dict[tuple[str, int], list[Record]] = {}
    done = []
    for r in records:
        if r.kind not in ("push", "pop") or (domain is not None and r.domain != domain):
            continue
        stack = stacks.setdefault((r.domain, r.tid), [])
        if r.kind == "push":
            stack.append(r)
        elif stack:
            depth = len(stack) - 1
            p = stack.pop()
            done.append(Range(name=p.name, category=p.category, color=p.color,
                              payload=p.payload, tid=p.tid, depth=depth, domain=p.domain,
                              push_line=p.line, pop_line=r.line))
    done.sort(key=lambda x: x.push_line)
    return done


def categories(records: Iterable[Record], domain: str = HDBENCH_DOMAIN) -> dict[int, str]:
    """Category id -> name, as named in domain (the last naming wins)."""
    return {r.category: r.name for r in records if r.kind == "category" and r.domain == domain}


def domains(records: Iterable[Record]) -> list[str]:
    """Names of the domains created, in order (a name twice if created twice)."""
    return [r.name for r in records if r.kind == "domain"]


def thread_names(records: Iterable[Record]) -> dict[int, str]:
    """OS tid -> name given with nvtxNameOsThread (the last naming wins)."""
    return {r.tid: r.name for r in records if r.kind == "thread"}


def stream_names(records: Iterable[Record]) -> list[str]:
    """Names given to CUDA streams, in order."""
    return [r.name for r in records if r.kind == "stream"]
