#!/usr/bin/env python3
"""Figures, a summary, comparisons and one HTML page from hdbench reports.

    hdbench_report.py plot REPORT... -o DIR
    hdbench_report.py summarize REPORT... [-o FILE.md]
    hdbench_report.py html REPORT... -o FILE.html
    hdbench_report.py compare BASE NEW [--threshold PERCENT] [--alpha P]
    hdbench_report.py compare BEFORE AFTER [--threshold PERCENT]   (two profile reports)
    hdbench_report.py verify PROFILE ABLATION... [--well PROFILE] [--fixed PROFILE] [--eager PROFILE]
                             [--tolerance PERCENT]
    hdbench_report.py reanalyse PROFILE RECORDS_DIR [--baseline REPORT] -o OUT

The work is done by the package beside this file, hdreport/ (its __init__.py shows
its rooms); this file parses the command line and calls into it. `plot` draws small
multiples (hdreport/core/facets.py): one panel per direction, dtype, consumer or sample
cost, at most six series an axes, a fixed colour per memory kind, implementation and
processor (hdreport/core/style.py), sizes in KiB/MiB/GiB, the PCIe link's rate in every
bandwidth panel (twice it for both directions at once); bar figures where the x axis is
a category (hdbench vs PyTorch, GPU vs CPU, the batch copy, stream overlap); the loader's
heat maps (from the first report); the data-parallel GPU step's time beside its
no-all-reduce step: each family's in hdreport/families/<family>/figures.py. Reads only
`params`, counters and `derived` rows, never names. Skipped and failed benchmarks are left
out and listed.
`summarize` answers the tutorials' questions, with tables where the answer is one
(hdreport/summary.py); `html` writes one self-contained page with the figures inlined
as SVG, the summary, the machine and what failed or was skipped (hdreport/page.py).
A report of `hdbench_profile -- COMMAND` (no benchmarks, a `profile` section) gets its
own answer first, "does COMMAND move data well on this machine?", and the
`profile_copy_classes` figure (hdreport/profile/summary.py, figures.py).
`compare` prints each benchmark's new/base time ratio (with a Mann-Whitney U test
when the runs had repetitions; NEW's times in BASE's unit) and exits 1 when one got slower
than the threshold, 2 when the reports share no benchmark that ran (nothing was compared).
Given two profile reports it sets them side by side instead (hdreport/profile/compare.py):
the realized change of span and wall time, each finding resolved, new, better or worse
(predicted savings against the realized one), totals, copy classes; exit 1 when AFTER's
span grew by more than the threshold. A profile report against a benchmark report is bad
usage (exit 2).
`verify` holds a profile's prices against the savings tools/fashion_mnist_ablation.sh
measured by fixing each habit alone (hdreport/profile/verify.py): a row a habit, the
findings' sum against all fixed and the well-written program, the top finding against the
largest measured saving; exit 1 when one misses, 2 when no fixed run was measured.
`reanalyse` makes a profile report again from the records it was made from
(`hdbench_profile --hdbench_records=DIR` kept them) with this revision's model: what ran,
its exit, wall time and the hand-over measured with it stay as they were; records of none
of its processes, or an output inside the records folder, are refused.
Exit code 2 for a missing, unreadable, foreign or malformed report (one line naming the
file and the problem: hdreport/core/schema.py checks the bytes, the JSON and the type of
every field the tools read), an option given twice, or a missing dependency (one line
saying what to install). A report's control characters are shown as escapes (\x1b), never
sent to the terminal; `-o` makes its missing folders only when it writes.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import subprocess
import sys
from pathlib import Path

# The package beside this script: a script's own folder is on sys.path, so no path edit.
import hdreport.profile.ablation
import hdreport.profile.baseline
import hdreport.profile.compare
import hdreport.profile.records
import hdreport.profile.report
import hdreport.profile.verify
import hdreport.profile.verify_text
from hdreport import compare, figures, page, summary
from hdreport.core import writer
from hdreport.core.schema import ReportError  # noqa: F401  (callers catch hdbench_report.ReportError)
from hdreport.core.schema import load as load_report

build_figures = figures.build_figures  # tests draw through the CLI's module

# Interpreters tried, in order, when the one running this lacks matplotlib.
FALLBACK_PYTHONS = "/usr/bin/python3:/usr/local/bin/python3"


def plot(paths: list[str], out_dir: str) -> list[Path]:
    reports = [(p, load_report(p)) for p in paths]
    built, left_out = figures.build_figures(reports)
    written = figures.write(built, out_dir)
    for line in figures.notes(reports, built):
        print(line, file=sys.stderr)
    print_left_out(left_out)
    return written


def print_left_out(left_out: list[str]) -> None:
    if left_out:
        print(f"left out of the figures ({len(left_out)}):", file=sys.stderr)
        for line in left_out[:20]:
            print(f"  {line}", file=sys.stderr)
        if len(left_out) > 20:
            print(f"  … and {len(left_out) - 20} more", file=sys.stderr)


def have_matplotlib(python: str | None = None) -> bool:
    if python is None:
        try:
            importlib.import_module("matplotlib")
            return True
        except ImportError:
            return False
    try:
        return subprocess.run([python, "-c", "import matplotlib"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def ensure_matplotlib(command: str, argv: list[str]) -> int | None:
    """None when matplotlib imports here; else re-runs this tool under an interpreter
    that has it (tools/install_deps.sh installs Debian's), or says in one line what
    to install and returns 2."""
    if have_matplotlib():
        return None
    if not os.environ.get("HDBENCH_REPORT_REEXEC"):
        here = os.path.realpath(sys.executable)
        for python in os.environ.get("HDBENCH_REPORT_PYTHONS", FALLBACK_PYTHONS).split(":"):
            if python and os.path.exists(python) and os.path.realpath(python) != here and have_matplotlib(python):
                sys.stdout.flush()
                os.execve(python, [python, os.path.abspath(__file__), *argv],
                          {**os.environ, "HDBENCH_REPORT_REEXEC": "1"})
    print(f"hdbench_report.py: `{command}` needs matplotlib, which {sys.executable} lacks: run "
          f"`{sys.executable} -m pip install matplotlib` (or tools/install_deps.sh)", file=sys.stderr)
    return 2


class Once(argparse.Action):
    """An option that takes one value: given twice (`--threshold 5 --threshold 50`), which one
    was meant cannot be told, so it is bad usage rather than the last one silently."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, f"_{self.dest}_given", False):
            parser.error(f"{'/'.join(self.option_strings)}: given twice; give it once")
        setattr(namespace, f"_{self.dest}_given", True)
        setattr(namespace, self.dest, values)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    writer.text_streams()
    parser = argparse.ArgumentParser(prog="hdbench_report.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_plot = sub.add_parser("plot", help="draw figures from reports (loader heat maps from the first one)")
    p_plot.add_argument("reports", nargs="+")
    p_plot.add_argument("-o", "--out", action=Once, required=True, help="folder for the PNG and SVG figures")
    p_compare = sub.add_parser("compare", help="per-benchmark time ratios of NEW over BASE, or two profile reports "
                                               "side by side; exit 1 on a regression")
    p_compare.add_argument("base")
    p_compare.add_argument("new")
    p_compare.add_argument("--threshold", action=Once, type=float, default=5.0,
                           help="percent slower that counts as a regression (default 5); for two profile "
                                "reports, percent longer span, and the change in a finding's saving that "
                                "counts as better or worse")
    p_compare.add_argument("--alpha", action=Once, type=float, default=0.05,
                           help="significance level of the U test when there are repetitions (default 0.05)")
    p_verify = sub.add_parser("verify", help="a profile's prices against the savings measured by fixing each habit "
                                             "alone (tools/fashion_mnist_ablation.sh); exit 1 when one misses")
    p_verify.add_argument("profile", help="hdbench_profile's report of the program as it is")
    p_verify.add_argument("ablation", nargs="+", help="tools/fashion_mnist_ablation.sh's JSON; several of the same "
                                                      "program, steps, batch and device are one, their rounds together")
    p_verify.add_argument("--well", action=Once, help="hdbench_profile's report of the well-written program: it should find nothing")
    p_verify.add_argument("--fixed", action=Once, help="hdbench_profile's report of the program with every habit fixed: its "
                                          "findings against what well_written measured faster than fix_all")
    p_verify.add_argument("--eager", action=Once, help="hdbench_profile's report of well_written.py --eager (its step op by op): "
                                          "its graph's price against what well_written measured faster than well_eager")
    p_verify.add_argument("--tolerance", action=Once, type=float, default=25.0,
                          help="percent of the measured saving a price may be off by (default 25)")
    p_again = sub.add_parser("reanalyse", help="a profile report made again from its kept records by this "
                                               "revision's model")
    p_again.add_argument("profile", help="the hdbench_profile report to make again")
    p_again.add_argument("records", help="the folder its --hdbench_records kept")
    p_again.add_argument("--baseline", action=Once, help="the transfer report its copies are judged against (default: none)")
    p_again.add_argument("-o", "--out", action=Once, required=True, help="the report to write")
    p_summary = sub.add_parser("summarize", help="a Markdown page answering the tutorials' questions")
    p_summary.add_argument("reports", nargs="+", metavar="report")
    p_summary.add_argument("-o", "--out", action=Once, help="write here instead of standard output")
    p_html = sub.add_parser("html", help="one self-contained HTML page: figures, summary, machine, skips")
    p_html.add_argument("reports", nargs="+")
    p_html.add_argument("-o", "--out", action=Once, required=True, help="the .html file to write")
    args = parser.parse_args(argv)
    if args.command in ("plot", "html"):
        missing = ensure_matplotlib(args.command, argv)
        if missing is not None:
            return missing
    files = [args.base, args.new] if args.command == "compare" else \
        [args.profile, *args.ablation] + [p for p in (args.well, args.fixed, args.eager) if p] \
        if args.command == "verify" else \
        [args.profile, args.records] if args.command == "reanalyse" else args.reports
    if getattr(args, "out", None) in ("-", ""):  # hdbench's own --hdbench_out=- is bad usage too, not a file named -
        return fail(f"-o {args.out!r}: give a path" + (" (without -o the page goes to standard output)"
                                                        if args.command == "summarize" else ""))
    out_file = getattr(args, "out", None) if args.command in ("summarize", "html", "reanalyse") else None
    if out_file:  # checked before any work: never the half of a page, nor an input replaced
        problem = writer.output_problem(out_file, tuple(files))
        if problem:
            return fail(f"{out_file}: {problem}")
    try:
        if args.command == "compare":
            return run_compare(args)
        if args.command == "verify":
            return run_verify(args)
        if args.command == "reanalyse":
            return run_reanalyse(args)
        if args.command == "summarize":
            reports = [(p, load_report(p)) for p in args.reports]
            return write_or_print(summary.summarize_reports(reports), args.out)
        if args.command == "html":
            reports = [(p, load_report(p)) for p in args.reports]
            return write_or_print(page.page(reports), args.out)
        written = plot(args.reports, args.out)
    except BrokenPipeError:  # the reader went away (`summarize ... | head`): not the report's fault
        # Python's recipe: point stdout at /dev/null so the flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ReportError as e:
        return fail(str(e))
    except OSError as e:  # standard output full or gone (reading a report raises ReportError): not the report's fault
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the flush at exit does not fail again
        return fail(f"cannot write the output: {e.strerror or e}")
    except Exception as e:  # noqa: BLE001  the last resort: a report the checks let through
        return fail(unexpected(files, args.command, e))
    # standard output full or gone: the figures are written, the list of them is not
    return writer.print_output("\n".join(map(str, written)), "hdbench_report.py", "the output") if written else 0


def fail(message: str) -> int:
    """Exit code 2 with `message` as one line on standard error."""
    print(f"hdbench_report.py: {writer.one_line(message)}", file=sys.stderr)
    return 2


def unexpected(files: list[str], command: str, error: Exception) -> str:
    """The line for an error no check caught: the files, what failed and where, so the
    hole in hdreport/core/schema.py can be closed."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return (f"{', '.join(files)}: `{command}` cannot use {'this report' if len(files) == 1 else 'these reports'} "
            f"({detail}{where}); a field has a value the tools do not expect")


def write_or_print(text: str, out_path: str | None) -> int:
    if not out_path:
        print(text)
        return 0
    try:
        writer.write_atomically(out_path, text)  # readers never see half a page
    except OSError as e:
        print(f"hdbench_report.py: {out_path}: cannot write: {e.strerror}", file=sys.stderr)
        return 2
    print(out_path)
    return 0


def run_compare(args) -> int:
    if not 0 <= args.threshold < math.inf or not 0 < args.alpha < 1:  # NaN fails both: no check switched off
        print("hdbench_report.py: --threshold must be a finite number >= 0 and --alpha between 0 and 1",
              file=sys.stderr)
        return 2
    base, new = load_report(args.base), load_report(args.new)
    if hdreport.profile.compare.is_profile(base) or hdreport.profile.compare.is_profile(new):
        hdreport.profile.compare.check_pair(args.base, base, args.new, new)  # one of each, or no profile section: exit 2
        comparison = hdreport.profile.compare.compare(args.base, base, args.new, new, args.threshold / 100)
        print(hdreport.profile.compare.format_report(comparison))
        return comparison.exit_code
    rows, only_base, only_new = compare.compare(base, new, args.threshold, args.alpha)
    if not rows:  # "0 regression(s)" over nothing compared would pass a CI gate it never checked
        raise ReportError(f"{args.base} and {args.new} share no benchmark that ran (only in BASE: {len(only_base)}, "
                          f"only in NEW: {len(only_new)}): nothing to compare")
    print(compare.format_report(rows, only_base, only_new, base, new, args.threshold, args.alpha))
    return 1 if any(r.regressed for r in rows) else 0


def run_verify(args) -> int:
    if not 0 <= args.tolerance < 100:
        print("hdbench_report.py: --tolerance must be a percent from 0 to below 100", file=sys.stderr)
        return 2
    verify = hdreport.profile.verify
    reports = [profile_report(path) for path in [args.profile] + ([args.well] if args.well else [])]
    ablations = hdreport.profile.ablation
    ablation = ablations.merged_ablations([(path, ablations.load_ablation(path)) for path in args.ablation])
    fixed = profile_report(args.fixed) if args.fixed else None
    eager = profile_report(args.eager) if args.eager else None
    result = verify.verify(args.profile, reports[0], ", ".join(args.ablation), ablation, args.tolerance / 100,
                           (args.well, reports[1]) if args.well else None, fixed, eager)
    print(hdreport.profile.verify_text.format_report(result))
    if not any(r.measured is not None for r in result["rows"]):  # a gate that held nothing must not pass
        return fail(f"{', '.join(args.ablation)}: no fixed run was measured (each failed or is missing): "
                    "no price was held against a saving")
    return verify.exit_code(result)


def profile_report(path: str, shown: bool = True) -> dict:
    report = load_report(path, shown)
    if not hdreport.profile.compare.is_profile(report) or not isinstance(report.get("profile"), dict):
        raise ReportError(f"{path}: not an hdbench_profile report")
    return report


def run_reanalyse(args) -> int:
    old = profile_report(args.profile, shown=False)  # written again: its strings as they were
    if not Path(args.records).is_dir():
        raise ReportError(f"{args.records}: not a folder of records (hdbench_profile --hdbench_records=DIR)")
    recording = hdreport.profile.records.read_recording(args.records)
    if not recording.processes:
        raise ReportError(f"{args.records}: holds no records-*.jsonl files")
    unreadable = hdreport.profile.report.not_recorded_reason(recording)
    if unreadable.startswith(hdreport.profile.report.UNREADABLE):
        raise ReportError(f"{args.records}: {unreadable}")
    profiled = {p.get("pid") for p in old["profile"].get("processes") or [] if isinstance(p, dict)}
    recorded = {p.pid for p in recording.processes}
    if profiled and not profiled & recorded:  # another run's records: its report would name this command
        raise ReportError(f"{args.records}: records of processes {sorted(recorded)}, where {args.profile} "
                          f"profiled {sorted(profiled)}: not this profile's recording")
    baseline = hdreport.profile.baseline.check_baseline(args.baseline) if args.baseline else None
    again = hdreport.profile.report.reanalysed(old, recording, baseline)
    try:
        hdreport.profile.report.write(args.out, again)
    except OSError as e:
        print(f"hdbench_report.py: {args.out}: cannot write: {e.strerror}", file=sys.stderr)
        return 2
    print(args.out)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
