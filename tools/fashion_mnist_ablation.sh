#!/usr/bin/env bash
# examples/fashion_mnist/ one habit at a time (issue 38 item 4): tutorial_style.py plain,
# with each --fix alone (workers, gather, pin, item, pack, gc, graph), with --fix all, and
# well_written.py (its step replayed as a CUDA graph; well_eager: the same with --eager),
# each with the same --steps and --batch, --repeat N rounds (default 1). Each round runs
# every variant once (round-robin: a drift of the machine spreads over all variants instead
# of landing on one), each round starting one variant further on (round 2 begins with the
# second variant, the first going last), and before round 1 --warmup N runs of plain
# (default 1) that count for nothing: on an H200 host the first run of a burst was 20-25%
# slower than the same run later, which, with plain always first, priced every fix 1-2 s
# too high (reports/reference/h200-2026-11-27). Each run has its own timeout. Prints each
# run's result line prefixed with its round ("[R/N] "), and writes OUT_JSON:
#   {"steps": N, "batch": B, "device": D, "step_wait": W, "repeat": N, "failed": [names],
#    "variants": {"plain": {"rc": 0, "wall_s": …, "batch_wait_s": …, "steps_per_s": …,
#                           "final_loss": …, "mean_loss": …, "fix": "none", "saved_s": 0.0,
#                           "saved_s_range": [0.0, 0.0], "runs": N, "wall_s_spread": …,
#                           "wall_s_runs": [one per round], "batch_wait_s_runs": […],
#                           "result_line": "…"},
#                 "fix_workers": {…}, "fix_gather": {…}, "fix_pin": {…}, "fix_item": {…},
#                 "fix_pack": {…}, "fix_gc": {…}, "fix_graph": {…}, "fix_all": {…},
#                 "well_written": {…}}}
# wall_s, batch_wait_s, steps_per_s: the median over the variant's successful runs; *_runs:
# every round's value in round order, null where that round's run failed; runs: how many
# succeeded; wall_s_spread: (max - min) / median of wall_s (0 for one run); final_loss,
# mean_loss, fix, step (well_written.py's, and --fix graph's: graph or eager), result_line:
# from its last successful run. rest_off_cpu_s (its median) and
# rest_off_cpu_s_runs: where every successful run's line gives it (tutorial_style.py), the
# training thread's time off the CPU outside its batch waits; batch_wait_off_cpu_s and its
# _runs the same, of its batch waits; pace_spread and its _runs, the slowest --log-every
# stretch's time a step over the fastest's (the host's speed changing within a run), and
# pace_best_ms and its _runs, the fastest's (ms a step); first_batch_s and its _runs, the
# first batch wait (tutorial_style.py: with --fix workers, their start); fix_workers runs under
# tools/loader_start_timeline.py, and start_parts_s ({forking, index_wait, first_build,
# hand_over}: each part's median) with start_timed_runs splits its first batch wait where
# that timed it. saved_s: plain's median wall_s
# minus the variant's, the measured saving to hold against what hdbench_profile predicts
# fixing that habit would save; saved_s_range: [min, max] of plain's wall_s minus the
# variant's in the same round, over the rounds where both succeeded (absent when none did).
# A run that fails or runs past FASHION_MNIST_ABLATION_TIMEOUT seconds (default 120; exit
# 124 then) counts against its variant: with some runs left it adds "failed_runs": count,
# "failed_rounds": [R, …] and "tail": the last failed run's last lines; with none left the
# variant is {"rc": N, "failed": true, "timed_out": rc is 124 or 137, "tail": its last lines,
# "runs": 0, "failed_runs": N} (rc, timed_out, tail: of its last run) and is listed in
# "failed". "warmup": {"runs": N, "wall_s_runs": [...]} keeps the warm-up runs' times (null
# where one failed; a failed warm-up does not stop the rounds). The JSON is written all the
# same (whole or not at all: a temp file beside it, fsynced, renamed over it), and the script
# exits 1 if any variant failed in every round or the JSON could not be written after all (2: a
# usage error; 130 or 143: stopped by SIGINT or SIGTERM before the JSON, the run under way too).
#   tools/fashion_mnist_ablation.sh OUT_JSON [--steps N] [--batch B] [--device DEV] [--repeat N]
#                                   [--variants LIST] [--max-seconds S] [--warmup N] [--step-wait W]
#                                   [--workers W] [-- SCRIPT_ARGS...]
#   tools/fashion_mnist_ablation.sh -h | --help     (the usage line; exit 0)
# Defaults: --steps 3000, --batch 256, --device cuda, --repeat 1, --warmup 1, every variant above.
# Every argument and OUT_JSON are checked before the first run (a mistake found after hours of
# runs would lose them all): --steps and --batch positive whole numbers of at most 9 digits,
# --repeat, --warmup and --workers of at most 6 and --max-seconds of at most 9 (longer ones
# overflow bash's arithmetic: a round count that wraps runs for ever); OUT_JSON not empty, not
# starting with "-" (an option put first by mistake; ./-NAME writes such a file), not a folder,
# a device or a pipe, not one of the files the runs read (the example scripts, this script,
# loader_start_timeline.py, a file among SCRIPT_ARGS), in a folder that can be made and written.
# --variants runs only the listed ones, in that order (comma-separated: plain, well_written,
# well_eager, fix_all, fix_<habit> and habits together as fix_<habit>+<habit>, e.g.
# fix_workers+pin);
# plain is always one of them, since every saving is taken against it; it leads round 1.
# --max-seconds S: start no round that would end past S seconds from the start (its length
# taken as the longest round so far), so that a caller's timeout never kills the script
# before it writes the JSON; the first round always runs. Then "repeat" is the rounds run
# and "rounds_asked" and "stopped" (why) are added.
# --step-wait W (item, sync or both; default item, the plain tutorial): tutorial_style.py's
# --step-wait in every run of it, another program to hold hdbench_profile's prices of a loop
# that synchronizes every step against (well_written.py has no per-step wait and runs as it
# is); the JSON's "step_wait" says which.
# --workers W: tutorial_style.py's --workers in every run that fixes workers (default: the
# script's own, 4), so that the count an input_pipeline finding advised is the one measured
# (tools/profile_gpu_check.sh passes it); the JSON's "workers" says which (null: the script's).
# SCRIPT_ARGS go to every run (e.g. --synthetic, --data-dir DIR). PYTHON (default python3) runs the scripts, one call a
# run in round order (with V variants, round 1's runs are calls 1-V, round 2's V+1-2V, …), then once more
# to write the JSON: a wrapper that fails on a chosen call fails that one run (the tests'
# way to fail a variant in one round only).
set -euo pipefail
usage="usage: $0 OUT_JSON [--steps N] [--batch B] [--device DEV] [--repeat N] [--variants LIST] [--max-seconds S] [--warmup N] [--step-wait item|sync|both] [--workers W] [-- SCRIPT_ARGS...]"
here=$(cd "$(dirname -- "$0")" && pwd)
examples=$here/../examples/fashion_mnist
# -h or --help anywhere before "--": the usage, and nothing run or written (not a file named --help)
for arg in "$@"; do
  [[ $arg == -- ]] && break
  [[ $arg == -h || $arg == --help ]] && { echo "$usage"; echo "(what it runs and writes: the comment at the top of $0)"; exit 0; }
done
(($#)) && [[ -n $1 ]] || { echo "OUT_JSON is missing; $usage" >&2; exit 2; }
out=$1
# an option first, OUT_JSON forgotten: not a file to make under that name (./-NAME is one)
[[ $out != -* ]] || { echo "OUT_JSON comes first, not '$out' (a file named so: ./$out); $usage" >&2; exit 2; }
shift
steps=3000 batch=256 device=cuda repeat=1 variants="" max_seconds=0 warmup=1 step_wait=item workers="" extra=()
while (($#)); do
  case $1 in
    --steps | --batch | --device | --repeat | --variants | --max-seconds | --warmup | --step-wait | --workers)
      (($# >= 2)) || { echo "$1 needs a value; $usage" >&2; exit 2; }
      name=${1#--}
      declare "${name//-/_}=$2"
      shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown argument '$1'; $usage" >&2; exit 2 ;;
  esac
done
# Digits capped: 10#N of 19 digits or more wraps in bash's 64-bit arithmetic (a --repeat of 20
# nines is 7.8e18 rounds), and the JSON's int() is only reached after every run.
[[ $steps =~ ^[0-9]{1,9}$ ]] && ((10#$steps >= 1)) || { echo "--steps needs a positive whole number of steps, not '$steps' (at most 9 digits); $usage" >&2; exit 2; }
steps=$((10#$steps))
[[ $batch =~ ^[0-9]{1,9}$ ]] && ((10#$batch >= 1)) || { echo "--batch needs a positive whole number of samples, not '$batch' (at most 9 digits); $usage" >&2; exit 2; }
batch=$((10#$batch))
[[ $repeat =~ ^[0-9]{1,6}$ ]] && ((10#$repeat >= 1)) || { echo "--repeat needs a positive integer, not '$repeat' (at most 6 digits); $usage" >&2; exit 2; }
repeat=$((10#$repeat))
[[ $max_seconds =~ ^[0-9]{1,9}$ ]] || { echo "--max-seconds needs a whole number of seconds, not '$max_seconds' (at most 9 digits); $usage" >&2; exit 2; }
max_seconds=$((10#$max_seconds))
[[ $warmup =~ ^[0-9]{1,6}$ ]] || { echo "--warmup needs a whole number of runs, not '$warmup' (at most 6 digits); $usage" >&2; exit 2; }
warmup=$((10#$warmup))
[[ $step_wait =~ ^(item|sync|both)$ ]] || { echo "--step-wait needs item, sync or both, not '$step_wait'; $usage" >&2; exit 2; }
if [[ -n $workers ]]; then
  if ! [[ $workers =~ ^[0-9]{1,6}$ ]] || ((10#$workers < 1)); then
    echo "--workers needs a positive whole number of workers, not '$workers' (at most 6 digits); $usage" >&2
    exit 2
  fi
  workers=$((10#$workers))
fi
python=${PYTHON:-python3}
limit=${FASHION_MNIST_ABLATION_TIMEOUT:-120}
# timeout's duration (seconds, a fraction, an s/m/h/d suffix): anything else failed every run with 125
[[ $limit =~ ^[0-9]{1,6}(\.[0-9]{1,6})?[smhd]?$ ]] || { echo "FASHION_MNIST_ABLATION_TIMEOUT needs a duration such as 120 or 2m, not '$limit'" >&2; exit 2; }
[[ -f $examples/tutorial_style.py ]] || { echo "no $examples/tutorial_style.py" >&2; exit 2; }
out_problem() {  # why OUT_JSON cannot take the JSON ("" when it can), found before any run
  # hdreport.core.writer.output_problem's checks, in bash: PYTHON is called once a run and once
  # for the JSON, never more (the tests' stand-ins count their calls), and nothing is written
  # but a probe file (a folder that is refused is not made)
  local input existing probe
  if [[ -d $out ]]; then echo "is a folder"; return; fi
  if [[ -e $out && ! -f $out ]]; then echo "is not a regular file (a device or a pipe): give a file's path"; return; fi
  if [[ -e $out ]]; then  # a link is followed, as the writer follows it
    for input in "$examples"/*.py "$here/loader_start_timeline.py" "$here/$(basename -- "$0")" "${extra[@]}"; do
      [[ -f $input && $out -ef $input ]] && { echo "is also an input ($input): writing it would lose that file"; return; }
    done
  fi
  existing=$(dirname -- "$out")  # the nearest folder there is: the missing ones are made in it
  while [[ ! -e $existing && ! -L $existing ]]; do existing=$(dirname -- "$existing"); done
  [[ -d $existing ]] || { echo "cannot be written in $existing: a file, not a folder"; return; }
  # a probe file, not -w: a read-only file system or a full quota refuses it too
  probe=$(mktemp "$existing/.ablation.check-XXXXXX" 2>&1) || { echo "cannot be written in $existing: ${probe##*: }"; return; }
  rm -f -- "$probe"
}
problem=$(out_problem)
[[ -z $problem ]] || { echo "OUT_JSON $out $problem; $usage" >&2; exit 2; }
err=$(mkdir -p -- "$(dirname -- "$out")" 2>&1) || { echo "OUT_JSON $out: its folder cannot be made: ${err#mkdir: }" >&2; exit 2; }
# The logs go on SIGINT and SIGTERM too (an EXIT trap alone is skipped when a signal kills
# bash), and the run under way with them: it runs in the background so that `wait` returns
# at the signal (a foreground one would hold the trap back until it ended, up to $limit s).
logs=""
stop() {  # stop STATUS: the run under way stopped (its timeout passes the TERM on, a KILL 10 s
  # later), then the EXIT trap removes the logs. The job table, not $!: a signal between the
  # fork and reading $! would miss the run, and an old $! may name another process by now.
  trap - INT TERM
  local running
  running=$(jobs -p)
  # shellcheck disable=SC2086  # one pid a line: at most one run is under way
  [[ -z $running ]] || { kill -TERM $running 2>/dev/null; wait 2>/dev/null; } || true
  exit "$1"
}
trap 'rm -rf "$logs"' EXIT
trap 'stop 130' INT
trap 'stop 143' TERM
logs=$(mktemp -d)

names=(plain fix_workers fix_gather fix_pin fix_item fix_pack fix_gc fix_graph fix_all well_written)
if [[ -n $variants ]]; then
  habit='(workers|gather|pin|item|pack|gc|graph)'
  IFS=, read -ra wanted <<<"$variants"
  names=(plain)
  for name in "${wanted[@]}"; do
    [[ $name =~ ^(plain|well_written|well_eager|fix_all|fix_$habit(\+$habit)*)$ ]] ||
      { echo "--variants: unknown variant '$name' (plain, well_written, well_eager, fix_all, fix_HABIT[+HABIT...] with HABIT one of workers, gather, pin, item, pack, gc, graph); $usage" >&2; exit 2; }
    [[ " ${names[*]} " == *" $name "* ]] || names+=("$name")
  done
fi
run_variant() {  # run_variant NAME ROUND: its output in $logs/NAME.ROUND.log, its exit status in $logs/NAME.ROUND.rc
  local name=$1 round=$2 script=tutorial_style opts=() rc=0
  [[ $step_wait == item ]] || opts=(--step-wait "$step_wait")  # tutorial_style.py's; well_written.py has none
  # well_written.py reads its loss every 100 steps, as tutorial_style.py logs it by default: its
  # pace (pace_spread, pace_best_ms) is timed between those reads (SCRIPT_ARGS may set another)
  local tag="[$round/$repeat]" log=$logs/$name.$round
  [[ $round == warmup* ]] && tag="[${round}]"  # not "[R/N]": a warm-up's line is no round's
  case $name in
    plain) ;;
    well_written) script=well_written opts=(--log-every 100) ;;
    well_eager) script=well_written opts=(--log-every 100 --eager) ;;
    fix_*) opts+=(--fix "$(tr + , <<<"${name#fix_}")") ;;
  esac
  # the advised workers, where the run starts any (fix_all fixes every habit)
  [[ -n $workers && $name =~ ^fix_(all|(.*\+)?workers(\+.*)?)$ ]] && opts+=(--workers "$workers")
  # fix_workers runs under loader_start_timeline.py (the same script in the same process; only
  # its DataLoader's start is timed), so a miss of verify's start row says which part it was
  local timed=()
  [[ $name == fix_workers ]] && timed=("$here/loader_start_timeline.py" --out "$log.start.json")
  echo "== $tag $name: $script.py ${opts[*]}"
  timeout -k 10 "$limit" "$python" "${timed[@]}" "$examples/$script.py" --steps "$steps" --batch "$batch" \
    --device "$device" "${opts[@]}" "${extra[@]}" >"$log.log" 2>&1 </dev/null &
  wait "$!" || rc=$?  # in the background only so that a signal reaches stop() at once (see the traps)
  echo "$rc" >"$log.rc"
  if ((rc == 0)); then
    grep '^note:' "$log.log" | sed 's/^/   /' || true  # e.g. --fix pin skipped on cpu
    echo "$tag $(tail -1 "$log.log")"
  else
    ((rc == 124)) && echo "   timed out after $limit s"
    echo "   FAILED (exit $rc):"
    tail -5 "$log.log" | sed 's/^/   /'
  fi
}
asked=$repeat stopped="" longest=0 began=$SECONDS
for ((w = 1; w <= warmup; w++)); do run_variant plain "warmup$w"; done
for ((round = 1; round <= asked; round++)); do
  if ((max_seconds > 0 && round > 1 && SECONDS - began + longest > max_seconds)); then
    stopped="round $round of $asked not started: a round takes up to ${longest} s and ${max_seconds} s (--max-seconds) would pass"
    echo "== $stopped"
    repeat=$((round - 1))
    break
  fi
  round_began=$SECONDS
  n=${#names[@]}
  for ((i = 0; i < n; i++)); do run_variant "${names[(i + round - 1) % n]}" "$round"; done
  ((SECONDS - round_began > longest)) && longest=$((SECONDS - round_began))
done

"$python" - "$here" "$out" "$logs" "$steps" "$batch" "$device" "$repeat" "$asked" "$stopped" "$warmup" "$step_wait" "$workers" "${names[@]}" <<'PY'
import json, re, statistics, sys
from pathlib import Path

tools, out, logs, steps, batch, device, repeat, asked, stopped, warmup, step_wait, workers, *names = sys.argv[1:]
sys.path.insert(0, tools)  # the hdreport package beside this script: verify's own loss check
from hdreport.core.writer import write_atomically  # noqa: E402
from hdreport.profile.ablation import trained_otherwise  # noqa: E402
logs, repeat, warmup = Path(logs), int(repeat), int(warmup)
FLOATS = ("wall_s", "steps_per_s", "final_loss", "mean_loss", "batch_wait_s")
MEDIANS = ("wall_s", "batch_wait_s", "steps_per_s")
# tutorial_style.py's since 2026-11-27 and 2026-11-28 (pace_spread: with three --log-every
# stretches or more); well_written.py gives the paces since 2026-11-28 (fourth session)
OPTIONAL = ("rest_off_cpu_s", "batch_wait_off_cpu_s", "pace_spread", "pace_best_ms", "first_batch_s")


def one_run(name, rnd):
    """(rc, log lines, the result line's fields or None when the run failed)"""
    rc = int((logs / f"{name}.{rnd}.rc").read_text())
    lines = (logs / f"{name}.{rnd}.log").read_text(errors="replace").splitlines()
    last = lines[-1] if lines else ""
    fields = dict(re.findall(r"(\w+)=(\S+)", last)) if re.match(r"^\w+: steps=", last) else {}
    ok = rc == 0 and set(FLOATS) <= set(fields)
    optional = {k: float(fields[k]) for k in OPTIONAL if re.fullmatch(r"[0-9.]+", fields.get(k, ""))}
    return rc, lines, ({**{k: float(fields[k]) for k in FLOATS}, **optional, "fix": fields.get("fix"),
                        "step": fields.get("step"), "result_line": last, "start": start_parts(name, rnd)}
                       if ok else None)


def start_parts(name, rnd):
    """loader_start_timeline.py's split of the run's first batch wait, where it timed one."""
    try:
        parts = json.loads((logs / f"{name}.{rnd}.start.json").read_text()).get("parts_s")
    except (OSError, ValueError):
        return None
    return parts if isinstance(parts, dict) and all(isinstance(v, float) for v in parts.values()) else None


variants, failed, per_round = {}, [], {}
for name in names:
    runs = [one_run(name, rnd) for rnd in range(1, repeat + 1)]
    good = [r for _, _, r in runs if r]
    bad = [(rnd, rc, lines) for rnd, (rc, lines, r) in enumerate(runs, 1) if not r]
    per_round[name] = [r["wall_s"] if r else None for _, _, r in runs]
    if not good:
        _, rc, lines = bad[-1]
        variants[name] = {"rc": rc, "failed": True, "timed_out": rc in (124, 137), "tail": lines[-5:],
                          "runs": 0, "failed_runs": len(bad)}
        failed.append(name)
        continue
    last = good[-1]
    entry = {"rc": 0, **{k: last[k] for k in FLOATS}, "fix": last["fix"], "result_line": last["result_line"]}
    if last["step"] is not None:  # well_written.py's, and tutorial_style.py's under --fix graph
        entry["step"] = last["step"]
    for k in MEDIANS:
        entry[k] = round(statistics.median(r[k] for r in good), 6)
    walls = [r["wall_s"] for r in good]
    entry["runs"] = len(good)
    entry["wall_s_runs"] = per_round[name]
    entry["batch_wait_s_runs"] = [r["batch_wait_s"] if r else None for _, _, r in runs]
    for k in OPTIONAL:
        if all(k in r for r in good):
            entry[k] = round(statistics.median(r[k] for r in good), 6)
            entry[f"{k}_runs"] = [r[k] if r else None for _, _, r in runs]
    entry["wall_s_spread"] = round((max(walls) - min(walls)) / entry["wall_s"], 4) if entry["wall_s"] else 0.0
    if starts := [r["start"] for r in good if r["start"]]:  # each part's median over the runs timed
        entry["start_parts_s"] = {k: round(statistics.median(s[k] for s in starts), 6) for k in starts[0]}
        entry["start_timed_runs"] = len(starts)
    if bad:
        entry.update(failed_runs=len(bad), failed_rounds=[rnd for rnd, _, _ in bad], tail=bad[-1][2][-5:])
    variants[name] = entry
plain = variants.get("plain", {})
for name, entry in variants.items():
    if "wall_s" in entry and "wall_s" in plain:
        entry["saved_s"] = round(plain["wall_s"] - entry["wall_s"], 3)
        paired = [p - v for p, v in zip(per_round["plain"], per_round[name]) if p is not None and v is not None]
        if paired:
            entry["saved_s_range"] = [round(min(paired), 3), round(max(paired), 3)]
more = {"rounds_asked": int(asked), "stopped": stopped} if stopped else {}
warm = [one_run("plain", f"warmup{w}")[2] for w in range(1, warmup + 1)]
more["warmup"] = {"runs": warmup, "wall_s_runs": [r["wall_s"] if r else None for r in warm]}
text = json.dumps({"steps": int(steps), "batch": int(batch), "device": device, "step_wait": step_wait,
                   "workers": int(workers) if workers else None,
                   "repeat": repeat, **more,
                   "failed": failed, "variants": variants}, indent=2) + "\n"
try:  # whole or not at all: a reader (or a kill mid-write) never sees half of it, an old one stays
    write_atomically(out, text)
except OSError as e:  # checked before the runs, but the folder may have gone or filled since
    print(f"fashion_mnist_ablation: could not write {out}: {e.strerror or e}", file=sys.stderr)
    sys.exit(1)
partly = [f"{n} {v['failed_runs']}/{repeat}" for n, v in variants.items() if not v.get("failed") and "failed_runs" in v]
# Every variant trains on the same samples in the same order: another mean loss is other work
# (verify holds no price against it).
otherwise = [f"{n} {variants[n]['mean_loss']:.4f}" for n in trained_otherwise({"variants": variants})]
print(f"wrote {out}" + (f" ({len(failed)} failed: {', '.join(failed)})" if failed else "")
      + (f" (failed runs: {', '.join(partly)})" if partly else "")
      + (f" (trained to other losses than plain's {plain['mean_loss']:.4f}: {', '.join(otherwise)})"
         if otherwise else ""))
sys.exit(1 if failed else 0)
PY
