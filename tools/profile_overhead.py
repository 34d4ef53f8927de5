#!/usr/bin/env python3
"""What recording costs a program, part by part: the command run plain and under
libhdbench_inject.so with each part of the recording on alone (HDBENCH_PROFILE_RECORD:
`none` loads the library and records nothing, `gpu` CUPTI's activity records, `api` the
kept calls' callbacks, `nvtx` the program's ranges, `gc` Python's garbage collections timed
(tools/profile_site) with the library recording nothing, `all` everything, as
hdbench_profile records), in rounds, round-robin, so that a drift of the machine spreads over all of them,
each round starting one variant further on, after --warmup runs of plain that count for nothing
(default 1): on an H200 host the first run of a burst took 1.25x the next ones, and with plain
always first it made every recording look cheaper than none
(reports/reference/h200-2026-11-27).

hdbench_profile made the tutorial's steps 1.20x as long on an H100 host, its host-only
batch building included, for no known reason (issue 38 asks for 1.05x): this is the
bisection the next GPU run makes. It needs a GPU (without CUDA the library never loads,
and every variant is the plain run).

Each run's time is the command's own `wall_s=` on its last line when it prints one (the
examples do, so start-up is left out), else the run as timed from here; `batch_wait_s=` is
kept where printed. Writes OUT (JSON):

    {"command": [...], "rounds": R, "rounds_run": n, "stopped": why or null, "max_seconds": S or null,
     "parts": [...], "warmup_wall_s_runs": [...],
     "variants": {"plain": {"wall_s": median, "wall_s_runs": [...], "batch_wait_s": median or null,
                            "batch_wait_off_cpu_s", "rest_off_cpu_s": medians or null,
                            "timed_by": "wall_s printed" | "from outside", "failed_runs": n},
                  "none": {..., "ratio_to_plain": wall_s / plain's, "ratio_gmean": r,
                           "ratio_interval_95": [low, high], and with --target "target",
                           "verdict": "met" | "missed" | "cannot tell", "why", "runs_to_tell",
                           where the command gives pace_best_ms: "pace_best": the same judgement of
                           the runs' fastest stretches}, ...}}

after the warm-up and again after every round (atomically), the medians over the runs so
far, so that a caller's timeout leaves the rounds done; "stopped" says why rounds_run < R
(while a round runs: that it was under way, which a file left so means it was cut off).
--max-seconds S (counted from the start, the warm-up included) starts no round that would
end past S: a round is taken to last as long as the longest so far from outside, the
first as the longest warm-up run times the variants (with no warm-up the first always
runs). The ratio of medians is what each run's middle reads; the verdict rests on the
interval (hdreport/profile/overhead.py: the geometric means' ratio, Welch's t on the runs'
log times): `met` or `missed` only where the whole interval is on one side of --target, else
`cannot tell` and how many runs of each would tell at the spread measured (on an H100 host
two rounds of the tutorial read 1.25x, 0.88-1.78x: three runs each might tell it from 1.05x).
--judge OLD.json prints the table of a file written before, judged against --target, and
runs nothing. Prints a table, and a line a run while it measures (where standard output
cannot take them, a closed pipe or a full disk, the runs go on and OUT is written). Exit 0;
1 when a variant failed in every round (or none ran); 2 on bad usage; on SIGTERM or SIGINT
128 + the signal's number, the command's run stopped (its process group: each run starts
one), its folder removed, and OUT left as last written whole (a round under way).

    python3 tools/profile_overhead.py OUT.json --lib build/release/lib/libhdbench_inject.so
        [--rounds 2] [--parts none,gpu,api,nvtx,gc,all] [--warmup 1] [--timeout 120] [--max-seconds S]
        [--target 1.05] -- python3 train.py ...
    python3 tools/profile_overhead.py --judge OLD.json [--target 1.05]

Its usage line names `out` and the options; the command goes after `--`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hdreport.core import writer
from hdreport.core.schema import ReportError, read_input_bytes
from hdreport.profile import overhead
from hdreport.profile.launch import injection_library_problem, python_path

PARTS = ("none", "gpu", "api", "nvtx", "gc", "all")
RESULT_FIELD = re.compile(r"\b(wall_s|batch_wait_s|batch_wait_off_cpu_s|rest_off_cpu_s|pace_spread|pace_best_ms)"
                          r"=([0-9]+(?:\.[0-9]+)?)(?![0-9.eE])")  # a number: `wall_s=1.2.3`, `=.` give none
# What the command's line may give beside wall_s, kept as each variant's median: the
# tutorial's batch wait and, of it and of the rest, the training thread's time off the CPU
# (is a recorded batch wait longer on the CPU, or waiting?), its pace_spread (did the host's
# speed change within the run, plain or recorded?) and pace_best_ms, its fastest stretch's
# time a step, which is also judged against plain's as the wall time is (`pace_best`): the
# recording costs each CUDA call alike, so its cost shows in the fastest stretches too, and
# they leave the host's slow stretches out.
EXTRA_FIELDS = ("batch_wait_s", "batch_wait_off_cpu_s", "rest_off_cpu_s", "pace_spread", "pace_best_ms")
# What a time read from the command's line may be: above 0 (a ratio to 0 is made up, and
# --judge refuses the file), finite (400 digits read as inf, which no JSON holds, and the
# interval then failed after every round) and within a nanosecond to thirty years, so that
# the interval of two runs' ratio, e^(its log ± t × its error), stays within what a float
# holds (1e-300 against 1e300 overflowed it).
TIME_RANGE = (1e-9, 1e9)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="profile_overhead.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", help="the JSON file to write")
    parser.add_argument("--lib", help="libhdbench_inject.so")
    parser.add_argument("--target", help="the overhead allowed, a ratio to plain (issue 38: 1.10 on "
                        "well_written.py, 1.05 on tutorial_style.py): a verdict on each recording")
    parser.add_argument("--judge", metavar="OLD.json", help="judge a file written before; run nothing")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, each running every variant once (default 2)")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"the recordings beside plain, comma-separated (default {','.join(PARTS)})")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a run may take (default 120)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="runs of plain before the rounds, not counted (default 1)")
    parser.add_argument("--max-seconds", help="start no round that would end past this many seconds from the "
                        "start (default: no limit)")
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.command = argv[split + 1:]
    if args.target is not None:
        given = args.target
        try:
            args.target = float(given)
        except ValueError:
            args.target = math.nan
        if not (args.target > 0 and math.isfinite(args.target)):
            parser.error(f"--target={writer.one_line(given)}: a ratio to plain above 0, such as 1.05")
    if args.judge is not None:
        if args.out or args.lib or args.command:
            parser.error("--judge runs nothing: give it no OUT, --lib or command")
        if not args.judge:  # Path("") is ".", which would be named as the file
            parser.error("--judge: give the path of a file this tool wrote")
        return args
    if not args.out:
        parser.error("give the JSON file to write (or --judge OLD.json)")
    if not args.command:
        parser.error("no command after `--`")
    if not args.lib:
        parser.error("--lib: give libhdbench_inject.so")
    if problem := injection_library_problem(args.lib):
        parser.error(f"--lib: {writer.one_line(problem)} (build it: cmake --build --preset release "
                     "--target hdbench_inject)")
    if not 1 <= args.rounds <= 100:
        parser.error(f"--rounds={args.rounds}: between 1 and 100")
    args.parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown or not args.parts:
        parser.error(f"--parts: unknown '{writer.one_line(','.join(unknown))}'; the parts are {', '.join(PARTS)}")
    # each part is a variant of its own, run once a round: one given twice would run twice a
    # round into one list of runs, its median over twice the runs of the others
    if twice := sorted({p for p in args.parts if args.parts.count(p) > 1}):
        parser.error(f"--parts: {', '.join(twice)} given more than once; each runs once a round")
    if not 0 <= args.warmup <= 10:
        parser.error(f"--warmup={args.warmup}: between 0 and 10")
    if not 0 < args.timeout <= 86400:  # inf or 1e300 would overflow the wait
        parser.error("--timeout: a positive number of seconds, at most a day")
    # The library is an input too: OUT naming it would overwrite it at the first save.
    problem = writer.output_problem(args.out, (args.lib, *(a for a in args.command if os.path.isfile(a))))
    if problem:  # said before the warm-up, not at the first save
        parser.error(writer.one_line(f"{args.out}: {problem}"))
    if args.max_seconds is not None:
        try:
            seconds = float(args.max_seconds)
        except ValueError:
            seconds = math.nan
        if not (seconds > 0 and math.isfinite(seconds)):
            parser.error(f"--max-seconds={writer.one_line(args.max_seconds)}: a positive number of seconds")
        args.max_seconds = seconds
    return args


def environment(lib: str, part: str | None, folder: str) -> dict:
    """The command's environment: plain (part None) without the library, else with it
    recording `part` into `folder`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "HDBENCH_PROFILE_DIR",
                        "HDBENCH_PROFILE_RECORD", "HDBENCH_PROFILE_GC")}
    if part is None:
        return env
    lib = os.path.abspath(lib)
    env.update(CUDA_INJECTION64_PATH=lib, NVTX_INJECTION64_PATH=lib, HDBENCH_PROFILE_DIR=folder,
               HDBENCH_PROFILE_RECORD={"all": "gpu,api,nvtx", "gc": "none"}.get(part, part))
    if part in ("gc", "all"):  # the collections timed, as hdbench_profile times them
        env["PYTHONPATH"] = python_path(env.get("PYTHONPATH"))
    return env


class Stopped(BaseException):
    """SIGTERM or SIGINT, raised where the tool is so that every cleanup on the way out runs
    (a BaseException: no `except OSError` on the way takes it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
STOP = {"signum": None, "held": 0}  # the stop asked for; how many steps it waits for (held)


def on_stop(signum: int, frame) -> None:
    """SIGTERM's and SIGINT's handler: Stopped, at once or once the step under way is done."""
    for s in STOP_SIGNALS:  # a second signal must not cut the way out short (the command's end, the folder's removal)
        signal.signal(s, signal.SIG_IGN)
    STOP["signum"] = signum
    if not STOP["held"]:
        raise Stopped(signum)


class held:
    """A step a stop waits for, raised once it is done: a command started and not yet known
    (it would run on, reparented), a folder made and not yet named or half removed (left in
    /tmp)."""

    def __enter__(self):
        STOP["held"] += 1

    def __exit__(self, *exc) -> None:
        STOP["held"] -= 1
        if STOP["signum"] is not None and not STOP["held"]:
            raise Stopped(STOP["signum"])


def progress(line: str) -> None:
    """A line of progress on standard output. Where that cannot take it (a closed pipe, `|
    head`; a full disk) the measurement of minutes goes on: said once on standard error, and
    standard output pointed at /dev/null, as writer.print_output does, so that neither the
    next line nor the flush at exit fails."""
    try:
        print(writer.one_line(line), flush=True)
    except OSError as e:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        try:
            print(f"profile_overhead.py: cannot write the progress: {e.strerror or e}; the runs go on, "
                  "their JSON written", file=sys.stderr, flush=True)
        except OSError:
            pass  # nowhere to say it: the JSON is what counts


def end(proc: subprocess.Popen, first: int = signal.SIGTERM, grace: float = 2.0) -> None:
    """The command's process group ended (the command and what it started, a DataLoader's
    workers): `first` to it all, SIGKILL to what is left after `grace` s, the command reaped."""
    with held():
        for signum in dict.fromkeys((first, signal.SIGKILL)):
            try:
                # its pid stays the group's while one of the group is left, reaped or not
                os.killpg(proc.pid, signum)
            except OSError:
                pass  # the whole group gone already
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass  # SIGKILL next; one that outlives even that (stuck in the kernel) is left
        for pipe in (proc.stdout, proc.stderr):
            pipe.close()


def read_field(name: str, text: str) -> float | None:
    """A number from the command's line, or None where it is not one to keep (TIME_RANGE; the
    waits and the spread may be 0)."""
    value = float(text)
    low = TIME_RANGE[0] if name in ("wall_s", "pace_best_ms") else 0.0
    return value if low <= value <= TIME_RANGE[1] else None


def run_once(command: list[str], env: dict, timeout: float) -> dict | None:
    """{"wall_s", "batch_wait_s", "timed_by"} of one run, or None when it failed. The command
    starts a session, so a process group, of its own: a timeout or a stop (SIGTERM, SIGINT)
    ends all it started, not the command alone."""
    start = time.perf_counter()
    proc = None
    try:
        with held():  # a stop waits for the command to be started and known: it is ended then
            proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as e:
        end(proc, signal.SIGKILL)
        progress(f"   failed: {e}")
        return None
    except OSError as e:  # not started: not found, not executable
        if proc is not None:
            end(proc)
        progress(f"   failed: {e}")
        return None
    except BaseException:  # stopped: the command's group ended before the tool goes on out
        if proc is not None:
            end(proc)
        raise
    outside = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (stderr or stdout).strip().splitlines()[-1:] or [""]
        progress(f"   failed (exit {proc.returncode}): {tail[0]}")
        return None
    lines = stdout.strip().splitlines()
    fields = dict(RESULT_FIELD.findall(lines[-1])) if lines else {}
    if "wall_s" in fields:
        wall = read_field("wall_s", fields["wall_s"])
        if wall is None:  # printed, so not to be timed from outside: a run that failed to time itself
            shown = fields["wall_s"] if len(fields["wall_s"]) <= 24 else fields["wall_s"][:20] + "..."
            progress(f"   failed: it printed wall_s={shown}, not a time ({TIME_RANGE[0]:g} to {TIME_RANGE[1]:g} s)")
            return None
        return {"wall_s": wall, "timed_by": "wall_s printed",
                **{k: read_field(k, fields[k]) if k in fields else None for k in EXTRA_FIELDS}}
    return {"wall_s": outside, "timed_by": "from outside", **dict.fromkeys(EXTRA_FIELDS)}


def median_or_none(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def judged(variants: dict, parts: list, target: float | None) -> dict:
    """`variants` with each recording's ratio to plain, its interval and, with a target, its
    verdict (hdreport/profile/overhead.py), from the runs' wall times."""
    plain = variants["plain"]
    for name in parts:
        v = variants[name]
        v["ratio_to_plain"] = v["wall_s"] / plain["wall_s"] if v["wall_s"] is not None and plain["wall_s"] else None
        v.update(overhead.judge(plain["wall_s_runs"], v["wall_s_runs"], target))
        if plain.get("pace_best_ms_runs") and v.get("pace_best_ms_runs"):
            v["pace_best"] = overhead.judge(plain["pace_best_ms_runs"], v["pace_best_ms_runs"], target)
    return variants


def summary(args: argparse.Namespace, runs: dict[str, list], warmup: list, stopped: str | None) -> dict:
    """The JSON of the runs so far."""
    variants = {}
    for name, results in runs.items():
        good = [r for r in results if r]
        variants[name] = {"wall_s": median_or_none([r["wall_s"] for r in good]),
                          "wall_s_runs": [r["wall_s"] if r else None for r in results],
                          **{k: median_or_none([r[k] for r in good]) for k in EXTRA_FIELDS},
                          # the fastest stretches' paces round by round, where every run gave one
                          **({"pace_best_ms_runs": [r["pace_best_ms"] if r else None for r in results]}
                             if good and all(r["pace_best_ms"] is not None for r in good) else {}),
                          "timed_by": good[-1]["timed_by"] if good else None,
                          "failed_runs": len(results) - len(good)}
    judged(variants, args.parts, args.target)
    return {"command": args.command, "rounds": args.rounds, "rounds_run": len(runs["plain"]), "stopped": stopped,
            "max_seconds": args.max_seconds, "parts": args.parts, "warmup_wall_s_runs": warmup,
            "target": args.target, "variants": variants}


def measure(args: argparse.Namespace, began: float, save: Callable[[dict], None]) -> dict:
    """Runs the warm-up and the rounds, calling save(the JSON so far) before each round (after
    the warm-up or the round before); returns the final JSON. The runs record into folders
    in one of /tmp, removed at the end, a stop's included."""
    scratch = None
    try:
        with held():  # made and named, or not made: never left behind
            scratch = tempfile.mkdtemp(prefix="hdbench_overhead-")
        return rounds(args, began, save, scratch)
    finally:
        if scratch is not None:
            with held():
                shutil.rmtree(scratch, ignore_errors=True)


def rounds(args: argparse.Namespace, began: float, save: Callable[[dict], None], scratch: str) -> dict:
    """measure's warm-up and rounds, their runs recording into folders in `scratch`."""
    names = ["plain", *args.parts]
    runs: dict[str, list] = {name: [] for name in names}
    warmup, warmup_outside = [], []
    for w in range(1, args.warmup + 1):
        t0 = time.monotonic()
        result = run_once(args.command, environment(args.lib, None, ""), args.timeout)
        warmup_outside.append(time.monotonic() - t0)
        warmup.append(result["wall_s"] if result else None)
        progress(f"[warm-up {w}] plain: {f'{warmup[-1]:.3f} s' if result else 'failed'} (not counted)")
    took: list[float] = []  # each round's length from outside, start-ups included
    for round_ in range(1, args.rounds + 1):
        # A round lasts as long as the longest so far; before the first, a warm-up run for each
        # variant (a little short: the recorded runs take longer than plain); with neither, the
        # first round always runs.
        if took:
            longest, basis = max(took), ""
        elif warmup_outside:
            longest = max(warmup_outside) * len(names)
            basis = f" (the warm-up's {max(warmup_outside):.1f} s for each of {len(names)} runs)"
        else:
            longest = None
        elapsed = time.monotonic() - began
        if args.max_seconds is not None and longest is not None and elapsed + longest > args.max_seconds:
            stopped = (f"round {round_} of {args.rounds} not started: a round takes up to {longest:.1f} s{basis} "
                       f"and {args.max_seconds:g} s (--max-seconds) would pass ({elapsed:.1f} s gone)")
            progress(stopped)
            return summary(args, runs, warmup, stopped)
        save(summary(args, runs, warmup, f"round {round_} of {args.rounds} under way when written "
                                          "(a file left so was cut off in it)"))
        t0 = time.monotonic()
        shift = (round_ - 1) % len(names)
        for name in names[shift:] + names[:shift]:
            folder = os.path.join(scratch, f"{round_}-{name}")  # each recording into a folder of its own
            os.mkdir(folder)
            result = run_once(args.command, environment(args.lib, None if name == "plain" else name, folder),
                              args.timeout)
            shutil.rmtree(folder, ignore_errors=True)
            runs[name].append(result)
            shown = f"{result['wall_s']:.3f} s" if result else "failed"
            progress(f"[{round_}/{args.rounds}] {name}: {shown}")
        took.append(time.monotonic() - t0)
    return summary(args, runs, warmup, None)


def table(result: dict) -> str:
    target = result.get("target")
    head = "× plain, geometric mean (95%)" + (f": against {target:.2f}x" if target else "")
    # the training thread's time off the CPU, in its batch waits and in the rest, where the command gives it
    off_cpu = any(v.get("batch_wait_off_cpu_s") is not None for v in result["variants"].values())
    best = any("pace_best" in v for v in result["variants"].values())
    lines = [f"| recorded | wall_s (median) | runs | batch_wait_s |{' off the CPU: wait, rest |' if off_cpu else ''}"
             f" × plain | {head} |{' the fastest stretches × plain (95%) |' if best else ''}",
             "|---|---:|---|---:|" + ("---:|" if off_cpu else "") + "---:|---|" + ("---|" if best else "")]

    def secs(x) -> str:
        return "–" if x is None else f"{x:.3f} s"

    for name, v in result["variants"].items():
        runs = ", ".join("failed" if w is None else f"{w:.3f}" for w in v["wall_s_runs"])
        off = f" {secs(v.get('batch_wait_off_cpu_s'))}, {secs(v.get('rest_off_cpu_s'))} |" if off_cpu else ""
        ratio = "–" if v.get("ratio_to_plain") is None else f"{v['ratio_to_plain']:.3f}"
        judgement = overhead.described(v) if name != "plain" else ""
        paced = f" {overhead.described(v['pace_best']) if 'pace_best' in v else ''} |" if best else ""
        lines.append(f"| {name} | {secs(v['wall_s'])} | {runs} | {secs(v['batch_wait_s'])} |{off} {ratio} | "
                     f"{judgement} |{paced}")
    why = [f"- {name}: {v['why']}" for name, v in result["variants"].items() if v.get("verdict") == "cannot tell"]
    return "\n".join(lines + ([""] + why if why else []))


def write(out: Path, result: dict) -> None:
    # strict JSON (run_once keeps no inf), whole or not at all, even when killed
    writer.write_atomically(str(out), json.dumps(result, indent=2, allow_nan=False) + "\n")


def judged_file_problem(result: dict) -> str:
    """What in a file to judge cannot be judged ("" where nothing): a target not above 0, a run's
    wall time not above 0 (a ratio of them would be made up)."""
    target = result.get("target")
    if target is not None and not (isinstance(target, (int, float)) and 0 < target < math.inf):
        return f"target {target!r}: a ratio to plain above 0"
    for name, v in result["variants"].items():
        for key in ("wall_s_runs", "pace_best_ms_runs"):
            for t in v.get(key) or []:
                if t is not None and not (isinstance(t, (int, float)) and 0 < t < math.inf):
                    return f"variants.{name}.{key}: {t!r} is not a time above 0"
    return ""


def judge_file(path: Path, target: float | None) -> int:
    """Prints the table of a file profile_overhead.py wrote, judged against `target` (else the
    file's own target): 0, or 2 where it is not such a file."""
    try:
        result = json.loads(read_input_bytes(str(path)).decode())
        if target is not None:
            result["target"] = target
        problem = judged_file_problem(result)
        if problem:
            print(writer.one_line(f"profile_overhead.py: --judge {path}: {problem}"), file=sys.stderr)
            return 2
        judged(result["variants"], result["parts"], result.get("target"))
        text = table(result)
    except ReportError as e:  # not a readable file: the path's own problem, said as it is
        print(writer.one_line(f"profile_overhead.py: --judge {e}"), file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, AttributeError, ArithmeticError, RecursionError) as e:
        print(writer.one_line(f"profile_overhead.py: --judge {path}: not a file this tool wrote "
                              f"({type(e).__name__}: {e})"), file=sys.stderr)
        return 2
    return writer.print_output(text, "profile_overhead.py", "the table")


def main(argv: list[str]) -> int:
    writer.text_streams()
    began = time.monotonic()
    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # one ignored stays so (`nohup`, a script's `&`)
            signal.signal(signum, on_stop)
    saved = []
    try:
        with held():  # its checks make probe files: a stop waits for them to go
            args = parse_args(argv)
        if args.judge is not None:
            return judge_file(Path(args.judge), args.target)
        out = Path(args.out)

        def save(so_far: dict) -> None:
            write(out, so_far)
            saved.append(True)

        result = measure(args, began, save)
        write(out, result)
        shown = writer.print_output(table(result), "profile_overhead.py", "the table")
    except Stopped as stop:
        left = f"{args.out} holds the rounds done before it" if saved else "nothing written"
        try:
            print(writer.one_line(f"profile_overhead.py: stopped by {signal.Signals(stop.signum).name}: {left}"),
                  file=sys.stderr, flush=True)
        except OSError:
            pass
        return 128 + stop.signum
    return shown or (1 if any(v["wall_s"] is None for v in result["variants"].values()) else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
