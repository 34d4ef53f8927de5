#!/usr/bin/env python3
"""The lines a lease's reader needs first, printed last by tools/profile_gpu_check.sh: a GPU
call's output comes back whole only in its last 12,000 characters, and the reports come back
packed. It prints

    what each example run says it ran: its result line's wall time, mean loss, first batch
                 wait (with workers, their start), `step` (graph or eager: whether a CUDA
                 graph was captured) and `fix`, by log
    each ablation's variants (and the workers it started, where given): median wall time,
                 `step`, the first batch wait of those with workers, failed, and any that
                 trained to other losses than plain (verify holds no price against those)
    each verify report's verdict line, and its rows that missed or were not measured
    each profile's probe: the workers' start it timed, for how many, holding how much memory
                 and by which measure (RssAnon, or VmRSS where the kernel says no more)

from the call's work folder. What is not there is said to be missing and it exits 0, so a
call's last step never fails on it; a wrong command line exits 2.

    python3 tools/lease_digest.py WORK_DIR
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the hdreport package beside it

from hdreport.core import writer  # noqa: E402
from hdreport.profile.ablation import trained_otherwise  # noqa: E402

RESULT = re.compile(r"^(tutorial_style|well_written): steps=")
KEPT = ("wall_s", "mean_loss", "first_batch_s", "step", "fix")  # of a result line's fields, the ones said here
LINE = 160  # characters a digest line keeps at most


def short(text: str) -> str:
    return text if len(text) <= LINE else text[:LINE - 1] + "…"


def each_file(work: Path, pattern: str, lines_of, none_text: str) -> list[str]:
    """lines_of(path) for each file of `work` matching `pattern`, in name order; a file it
    cannot read (a folder, a field of another type) says so in a line: the digest never fails."""
    out = []
    for path in sorted(work.glob(pattern)):
        if path.exists() and not path.is_file() and not path.is_dir():  # a pipe would wait for a writer forever
            out.append(short(f"  {path.name}: not a file (a pipe or a device): left unread"))
            continue
        try:
            out += lines_of(path)
        except Exception as e:  # noqa: BLE001  whatever a damaged file holds, the other lines still print
            out.append(short(f"  {path.name}: unreadable ({type(e).__name__}: {e})"))
    return out or [none_text]


def result_lines(log: Path) -> list[str]:
    out = []
    for line in log.read_text(errors="replace").splitlines():
        if RESULT.match(line):
            fields = dict(re.findall(r"\b(\w+)=(\S+)", line))  # \b: one try a word, not one a letter
            kept = " ".join(f"{k}={fields[k]}" for k in KEPT if k in fields)
            out.append(short(f"  {log.stem}: {line.split(':', 1)[0]} {kept}"))
    return out


def ablation_lines(path: Path) -> list[str]:
    ablation = json.loads(path.read_text())
    parts = []
    for name, v in ablation["variants"].items():
        if v.get("failed"):
            parts.append(f"{name} FAILED")
        else:
            parts.append(f"{name} {v.get('wall_s', '?')} s" + (f" {v['step']}" if v.get("step") else "")
                         # with workers, their start: the first batch wait
                         + (f" (first batch {v['first_batch_s']} s{start_parts(v)})" if "workers" in name and
                            v.get("first_batch_s") is not None else ""))
    workers = f", {ablation['workers']} workers" if ablation.get("workers") else ""  # --workers, where given
    out = [f"  {path.name} ({ablation.get('repeat', '?')} rounds{workers}): " + ", ".join(parts)]
    for name, why in trained_otherwise(ablation).items():
        out.append(short(f"    {name} trained to other losses: {why}"))
    return out


def start_parts(variant: dict) -> str:
    """`: forking …, index wait …, first build …, hand-over …` (ms, loader_start_timeline.py's
    medians) where the ablation timed the variant's first batch wait in parts; else nothing."""
    parts = variant.get("start_parts_s")
    if not isinstance(parts, dict):
        return ""
    return ": " + ", ".join(f"{name.replace('_', ' ')} {1e3 * value:.1f} ms" for name, value in parts.items()
                            if isinstance(value, (int, float)))


def verify_lines(path: Path) -> list[str]:  # verify.md is a copy of one of the logs
    lines = path.read_text(errors="replace").splitlines()
    verdict = next((line for line in lines if line.startswith("**")), None)
    return [f"  {path.name}: {verdict or 'no verdict line: ' + short(lines[-1] if lines else 'empty')}"] + \
        [short(f"    {line}") for line in lines if line.startswith("| ") and
         ("| missed" in line or "| not measured" in line)]


def probe_lines(path: Path) -> list[str]:
    try:
        handover = json.loads(path.read_text())["profile"]["model"]["handover"]
    except (KeyError, TypeError):
        return []  # no model, or no probe asked: nothing to say of it
    if not isinstance(handover, dict) or not handover.get("measured"):
        return []
    start = handover.get("workers_start_s")
    held = handover.get("start_footprint_bytes")
    return [short(f"  {path.stem}: a batch {1e3 * handover['batch_s']:.2f} ms"
                  + (f", starting {handover.get('start_workers') or 'its own'} workers {1e3 * start:.1f} ms" if
                     isinstance(start, (int, float)) else ", the start not timed")
                  + (f" holding {held / 1e6:.0f} MB ({handover.get('start_footprint_measure') or 'RssAnon'})"
                     if isinstance(held, int) else ""))]


def main(argv: list[str]) -> int:
    writer.text_streams()
    if argv in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) != 1:
        print("usage: lease_digest.py WORK_DIR", file=sys.stderr)
        return 2
    work = Path(argv[0])
    if not work.is_dir():  # a typo would otherwise read as a call that ran nothing
        print(f"lease_digest.py: {work}: not a folder (the call's work folder)", file=sys.stderr)
        return 2
    text = "\n".join(["== lease digest ==",
                     "result lines:", *each_file(work, "*.log", result_lines, "  no example's result line in the logs"),
                     "ablations:", *each_file(work, "ablation*.json", ablation_lines, "  no ablation JSON"),
                     "verify:", *each_file(work, "verify*.log", verify_lines, "  no verify report"),
                     "probe:", *each_file(work, "prof-*.json", probe_lines,
                                          "  no profile with a probe's measurement")])
    return writer.print_output(text, "lease_digest.py", "the digest")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
