"""How `verify`'s result reads (hdreport/profile/verify.py makes it): the answer line, the
table of claims held against measured savings, and the table of each run's parts."""

from __future__ import annotations

from hdreport.core.markdown import table
from hdreport.profile.ablation import Measured
from hdreport.profile.findings import duration_text


def saved_text(s: float) -> str:
    """A measured saving; a negative one is a cost, said so ("−773 ms" read as a saving)."""
    return seconds(s) + (" (slower)" if s < 0 else "")


def span_text(low: float, high: float, measured: float) -> str:
    """A model's part as a range, and how far outside it the measurement lies, if it does."""
    near = low if measured < low else high if measured > high else None
    return f"{seconds(low)} to {seconds(high)}" + (percent_off(near, measured) if near is not None else "")


def percent_off(model: float, measured: float) -> str:
    if measured <= 0:
        return ""
    return f" ({(model - measured) / measured * 100:+.0f}%)".replace("-", "−")


def format_split(result: dict) -> list:
    """The parts table and what it shows, or nothing where there are no parts."""
    parts = result.get("parts") or []
    if not parts:
        return []
    off_cpu = any(p.off_cpu_s is not None for p in parts)
    out = ["", "Where each run's time went, the model's parts (scaled as the prices are) beside the measured: "
           "the training thread's wait for its batches (`batch_wait_s`) and the rest of its wall time"
           + (", and of the rest the time that thread was off the CPU (`rest_off_cpu_s`: waiting for the GIL or "
              "for autograd's device thread; measured only)" if off_cpu else "") + ".", ""]
    out += table(["run", "batch wait: model", "measured", "the rest: model", "measured"]
                 + (["off the CPU"] if off_cpu else []),
                 [[p.what, model_part(p.batch_model_low_s, p.batch_model_s, p.batch_measured_s),
                   seconds(p.batch_measured_s),
                   model_part(p.rest_model_s, p.rest_model_s + p.batch_model_s - p.batch_model_low_s
                              if p.batch_model_low_s is not None else None, p.rest_measured_s),
                   seconds(p.rest_measured_s)] + ([seconds(p.off_cpu_s)] if off_cpu else []) for p in parts])
    if any(p.batch_model_low_s is not None for p in parts):
        out += ["", "A range: the time the pin thread's share of the GIL adds over the training thread's own path, "
                "which the model cannot place between the wait for batches and the rest."]
    off = [p for p in parts if p.off]
    if off:
        out += ["", f"Off by more than {result['tolerance'] * 100:.0f}% (and the floor): "
                + "; ".join(f"{p.what}: {' and '.join(p.off)}" for p in off)
                + ". A price there that holds on the whole holds by errors that cancel."]
    return out


def format_start(start: dict | None) -> list:
    """The workers' start as priced beside the first batch waits measured, or nothing."""
    if not start:
        return []
    priced = (f"priced at {seconds(start['priced_s'])} for {start['workers']} workers (the probe's, taken off every "
              "price with workers)" if start["priced_s"] is not None else "not priced (the probe did not time it)")
    ran = start.get("ran_workers")
    fixed = "`--fix workers`" + (f" ({ran} workers)" if ran else " (the script's default workers)")
    waits = [f"{what} waited {seconds(start[key])} for its first batch" for what, key in
             ((fixed, "fix_workers_first_batch_s"), ("plain", "plain_first_batch_s"))
             if start[key] is not None]
    return ["", f"The workers' start: {priced}" + (f"; {' and '.join(waits)}" if waits else "") + "."]


# loader_start_timeline.py's parts of a first batch wait with workers, in the order they happen
START_PARTS = (("forking", "forking the workers"), ("index_wait", "waiting for the first indices"),
               ("first_build", "building batch 0 in a worker"), ("hand_over", "handing it over"))


def format_start_parts(parts: dict | None) -> list:
    """Where `fix_workers`' first batch wait went, where the ablation timed its parts."""
    if not parts or any(key not in parts for key, _ in START_PARTS):
        return []
    return ["", "Where `--fix workers`' first batch wait went (tools/loader_start_timeline.py, each part's median): "
            + ", ".join(f"{what} {seconds(parts[key])}" for key, what in START_PARTS)
            + ". The probe's start (tools/handover_probe.py) forks as many workers from a process of the "
            "program's size and hands over one batch built whole: a part far beyond its own is the program's "
            "(its sampler, its build sample by sample)."]


def model_part(a: float | None, b: float | None, measured: float) -> str:
    """The model's part: one figure with how far off it is, or where it is a range (a to b), the range."""
    if a is None or b is None:
        one = b if a is None else a
        return seconds(one) + percent_off(one, measured)
    return span_text(a, b, measured)


def seconds(s: float | None) -> str:
    if s is None:
        return "–"
    return ("−" if s < 0 else "") + duration_text(abs(s))


def format_report(result: dict) -> str:
    rows = result["rows"]
    out = ["# hdbench_profile's prices against the measured fixes", "", verdict_line(rows), "",
           f"Profile `{result['profile']}`; ablation `{result['ablation']}` ({result['steps']} steps, "
           f"{result['rounds']} round{'s' if result['rounds'] != 1 else ''}"
           + (f", {result['device']}" if result['device'] else "")
           + (f", `--step-wait {result['step_wait']}`" if result.get("step_wait", "item") != "item" else "") + ")"
           + (f"; {result['stopped']}" if result["stopped"] else "") + ".",
           (f"Prices are held as shares of the profiled steps' {seconds(result['profiled_s'])}, applied to plain's "
            f"median {seconds(result['plain_s'])} (×{result['scale']:.3g}): the recording made the steps "
            f"{result['profiled_s'] / result['plain_s']:.2f}x as long. What the probe measured (a hand-over, a gather, "
            f"the pin thread) is held as measured. " if result["profiled_s"] else
            f"Prices scaled from the {result['profiled_steps']} steps profiled to {result['steps']}. "
            if result["profiled_steps"] and result["scale"] != 1 else
            "The profiled command gives no `--steps`: prices not scaled to the ablation's steps. "
            if not result["profiled_steps"] else "")
           + f"A price holds within {result['tolerance'] * 100:.0f}% of the measured saving (plain's median wall "
           f"time minus the fixed run's); a habit not recommended holds when fixing it saved under "
           f"{seconds(result['floor_s'])} (the profile's floor: 2% of its recorded span"
           + (f", scaled as the prices are" if result["profiled_s"] and result["scale"] != 1 else "") + ")."
           + ("" if result.get("warmed_up", True) else
              " The ablation ran no warm-up and plain first in every round: plain's time may carry the first "
              "run's cost (on an H200 host the first run of a burst took about 1.25x the next ones), which makes "
              "every fix look better than it is."), ""]
    paced_rows = [r for r in rows if r.paced is not None]
    if paced_rows:
        out += ["On the fastest stretches: each run's fastest `--log-every` stretch's time a step (`pace_best_ms`), "
                "plain's less the fixed run's (for the `--fix all` profile, `fix_all`'s less `well_written.py`'s), "
                "times the steps, the saving with the host's slow stretches (and a fix's start) left out; a price "
                "is held there as the same share of plain's (`fix_all`'s) fastest pace"
                + (f", {seconds(result['paced_plain_s'])} over the steps for plain" if result["paced_plain_s"] else "")
                + ". The exit code follows the wall times' verdicts.", ""]
    if result.get("trained_otherwise"):
        out += ["**Trained to other losses than plain, so held against no price:** " + "; ".join(
            f"`{n}` ({why})" for n, why in result["trained_otherwise"].items())
            + ". Every variant visits the same samples in the same order: its time is of other work.", ""]
    out += table(["fixed", "the profile said", "measured saving", "rounds", "verdict"]
                 + (["on the fastest stretches"] if paced_rows else []),
                 [[r.what, r.claim, saved_text(r.measured.median_s) if r.measured else "–",
                   rounds_text(r.measured), r.verdict + (f" ({r.note})" if r.note else "")]
                  + ([paced_text(r)] if paced_rows else []) for r in rows])
    out += format_split(result)
    out += format_start(result.get("workers_start"))
    out += format_start_parts(result.get("start_parts"))
    if result["unused"]:
        out += ["", "Measured but not held against a price: " + ", ".join(f"`{n}`" for n in result["unused"])
                + " (the profile prices each fix alone and its findings together)."]
    return "\n".join(out)


def verdict_line(rows: list) -> str:
    """The report's answer, first under its title: how many claims held and missed."""
    held = sum(r.verdict == "held" for r in rows)
    missed = sum(r.missed for r in rows)
    beyond = sum(r.verdict == "beyond the recording" for r in rows)
    unmeasured = len(rows) - held - missed - beyond
    paced_rows = [r for r in rows if r.paced is not None]
    paced_held = sum(r.paced_verdict == "held" for r in paced_rows)
    paced_missed = sum(r.paced_verdict == "missed" for r in paced_rows)
    return (f"**{held} of {len(rows)} held, {missed} missed**"
            + (f", {beyond} measured beyond what the recording allows (no verdict)" if beyond else "")
            + (f", {unmeasured} not measured" if unmeasured else "")
            + (f"; on the fastest stretches {paced_held} of {len(paced_rows)} held, {paced_missed} missed"
               if paced_rows else "") + ".")


def rounds_text(m: Measured | None) -> str:
    """The rounds' paired savings as a range, `one` for one round, `–` for none."""
    if m and m.range_s:
        return f"{seconds(m.range_s[0])} to {seconds(m.range_s[1])}"
    return "one" if m and m.runs == 1 else "–"


def paced_text(r) -> str:
    """A row's (verify.Row) saving on the fastest stretches, its rounds and its verdict there, or `–`."""
    if r.paced is None:
        return "–"
    spread = f" ({rounds_text(r.paced)})" if r.paced.range_s else ""
    return f"{seconds(r.paced.median_s)}{spread}: {r.paced_verdict}" + (f" ({r.paced_note})" if r.paced_note else "")
