#!/usr/bin/env python3
"""Runs any CUDA program under hdbench's CUPTI injection library and judges its data
movement against what this machine measured (an hdbench report: the baseline).

    hdbench_profile [--hdbench_out=REPORT.json] [--hdbench_baseline=REPORT.json]
                    [--hdbench_trace=TRACE.json] [--hdbench_trace_budget=N]
                    [--hdbench_inject_lib=PATH] [--hdbench_bin=PATH]
                    [--hdbench_records=DIR] [--hdbench_probe_python=PATH|none]
                    -- COMMAND ARGS...

The command runs with its standard streams untouched and with CUDA_INJECTION64_PATH set to
the injection library, so every process of it that starts CUDA writes its copies, kernels
and host calls to a fresh folder (HDBENCH_PROFILE_DIR). Then the report is written: an
hdbench report with a `profile` section (hdreport/profile/report.py; the analysis is
hdreport/profile/analysis.py and hdreport/profile/findings.py; the run,
hdreport/profile/launch.py: this file parses the command line only), by default
reports/profile-<command>-<time>.json, the Perfetto trace next to it (.trace.json).
--hdbench_records=DIR keeps the processes' raw records (records-<pid>.jsonl) there, so the
recording can be analysed again (hdreport.profile.records.read_recording(DIR)).
The baseline is --hdbench_baseline, else the newest reports/*.json with transfer copies,
else one measured now with the hdbench binary (--hdbench_bin) after the command has run
(so the GPU is the program's alone while it is recorded), only when it copied anything.
Where the program built batches on its training thread, the input-pipeline fix is priced
with what a batch of the same shape from a DataLoader worker costs here, measured after the
command by tools/handover_probe.py in the command's own Python (`python3 train.py`; else this
tool's, or --hdbench_probe_python; `none` skips it and the model takes constants measured on
H100 and H200 hosts).

This tool's own lines go to standard error, prefixed `hdbench_profile: `. Exit code: the
command's (killed by signal n: 128+n); 2 for bad usage (nothing ran); 127 when the command
does not exist. SIGINT and SIGTERM sent to this tool go on to the command, and the report
is still written; sent after the command ended, they stop the baseline or the probe being
measured (launch.AfterTheCommand), and the report is written without it. Where the report,
trace and records go is checked before the command runs (check_outputs); a default report
name another run of the same second has is not taken (-2, -3, ...).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

# The package beside this script: a script's own folder is on sys.path, so no path edit.
from hdreport.core import writer
from hdreport.core.schema import ReportError
from hdreport.profile import launch
from hdreport.profile.baseline import check_baseline

FLAGS = ("out", "baseline", "trace", "trace_budget", "inject_lib", "bin", "records", "probe_python")
USAGE = ("usage: hdbench_profile [--hdbench_out=REPORT.json] [--hdbench_baseline=REPORT.json] "
         "[--hdbench_trace=TRACE.json] [--hdbench_trace_budget=N] [--hdbench_inject_lib=PATH] "
         "[--hdbench_bin=PATH] [--hdbench_records=DIR] [--hdbench_probe_python=PATH|none] -- COMMAND ARGS...")


class UsageError(Exception):
    """Bad usage: one line, exit 2, nothing run."""


def parse(argv: list[str]) -> tuple[dict, list[str]]:
    if "--" not in argv:
        raise UsageError("no `--` before the command; " + USAGE)
    split = argv.index("--")
    flags, command = argv[:split], argv[split + 1:]
    options: dict[str, str] = {}
    for arg in flags:
        match = re.fullmatch(r"--hdbench_([a-z_]+)=(.*)", arg, re.S)
        if re.fullmatch(r"--hdbench_([a-z_]+)", arg) and arg[len("--hdbench_"):] in FLAGS:
            raise UsageError(f"{arg}: give a value, as {arg}=VALUE")
        if not match or match.group(1) not in FLAGS:
            known = ", ".join(f"--hdbench_{f}" for f in FLAGS)
            raise UsageError(f"unknown option {arg} (known: {known}, then -- COMMAND ARGS...)")
        name, value = match.groups()
        if not value:
            raise UsageError(f"--hdbench_{name}: give a value")
        options[name] = value  # the last one wins: the installed wrapper's go first
    if "trace_budget" in options and not re.fullmatch(r"[0-9]{1,12}", options["trace_budget"]):
        raise UsageError(f"--hdbench_trace_budget={options['trace_budget']}: give a whole number of records >= 0")
    if not command:
        raise UsageError("no command after `--`; " + USAGE)
    return options, command


def check_outputs(options: dict, out: Path, command: list[str]) -> None:
    """Where the report, the trace and the records go, checked before the command runs: a
    training run must not end in "cannot write". The files the command names (its script)
    and the baseline are inputs no output may replace."""
    inputs = tuple(arg for arg in [options.get("baseline", ""), *command] if arg and os.path.isfile(arg))
    problem = writer.output_problem(out, inputs)
    if problem:
        raise UsageError(f"--hdbench_out={out}: {problem}")
    # The trace goes beside the report unless given: that path is checked too (a baseline named
    # p.trace.json was replaced by `--hdbench_out=p.json`'s trace).
    trace = options.get("trace") or str(launch.trace_path_for(out))
    named = f"--hdbench_trace={trace}" if "trace" in options else \
        f"the trace beside the report (--hdbench_trace=PATH to move it): {trace}"
    problem = writer.output_problem(trace, inputs)
    if problem:
        raise UsageError(f"{named}: {problem}")
    if os.path.realpath(trace) == os.path.realpath(out):
        raise UsageError(f"--hdbench_trace={trace}: is the report's path too (--hdbench_out)")
    if "records" in options:
        records = Path(options["records"])
        if os.path.lexists(records) and not os.path.isdir(records):  # neither raises on a name too long
            what = "a file" if os.path.isfile(records) else "a device, a pipe or a link to nothing"
            raise UsageError(f"--hdbench_records={records}: is {what}, not a folder")
        problem = writer.output_problem(records / "records-0.jsonl")
        if problem:
            raise UsageError(f"--hdbench_records={records}: {problem}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    writer.text_streams()
    own = argv[:argv.index("--")] if "--" in argv else argv  # the installed wrapper's options go first
    if any(arg in ("-h", "--help") for arg in own):
        return writer.print_output(__doc__.strip(), "hdbench_profile", "the help")
    try:
        options, command = parse(argv)
        # The baseline given is checked before anything runs: a wrong file is bad usage.
        given = check_baseline(options["baseline"]) if "baseline" in options else None
        when = launch.stamp()
        out = Path(options.get("out") or launch.default_out(command, when))
        check_outputs(options, out, command)
    except (UsageError, ReportError) as e:
        launch.say(str(e))
        return 2
    return launch.profile(options, given, when, command, out, argv[:argv.index("--")], os.path.abspath(__file__),
                          named="out" in options)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C before the command ran (measuring the baseline) or after it
        launch.say("interrupted")
        sys.exit(130)
