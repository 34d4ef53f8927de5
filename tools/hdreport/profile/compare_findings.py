"""`compare`'s findings section: each finding of two profile reports, paired by `id`, as
resolved, new, better, worse or same, its predicted saving before and after, and what the
change realized against what BEFORE predicted (compare.py makes the pairing)."""

from __future__ import annotations

from hdreport.core.markdown import table
from hdreport.profile.compare_text import change_text, duration, is_number, one_line, share
from hdreport.profile.summary import TITLES  # the findings' names, as the summary gives them

STATUS_ORDER = ("resolved", "worse", "new", "better", "same")


def saving_text(saving: float | None, span: float | None) -> str:
    if saving is None:
        return "–"
    pct = share(saving, span)
    return f"{duration(saving)} ({pct})" if pct else duration(saving)


def findings_section(c) -> list[str]:
    """The findings side by side (c: a compare.Comparison), the predicted saving against the realized."""
    lines = ["## Findings", ""]
    if not c.both_recorded:
        return lines + ["Not compared: a profile that recorded nothing has no findings to set against the other's."]
    if not c.findings:
        return lines + ["Neither profile has a finding."]
    realized = c.realized_saving
    resolved = c.resolved
    rows = []
    for f in c.findings:
        name = f"`{one_line(f.id)}`" + (f" ({TITLES[f.id]})" if f.id in TITLES else "")
        status = f"**{f.status}**" if f.status != "same" else "same"
        before = saving_text(f.saving_before, c.before.span)
        after = saving_text(f.saving_after, c.after.span)
        if f.status == "resolved":
            change = "–"
            steps = c.realized_on_steps
            real = ("not separable" if len(resolved) > 1 else
                    f"{signed_saving(steps[3])} on the loop's steps; {signed_saving(realized)} on the span" if steps
                    else signed_saving(realized) + " (the whole span's change)")
        elif f.status == "new":
            change, real = "–", ""
        else:
            change, real = change_text(f.saving_before, f.saving_after), ""
        rows.append([name, status, before, after, change, real])
    lines += table(["finding", "status", "saving before (predicted)", "saving after", "change", "realized"],
                   rows)
    counts = {s: sum(f.status == s for f in c.findings) for s in STATUS_ORDER}
    lines += ["", "Savings are each report's predictions of what fixing that habit alone saves (`saving_alone_s`, "
                  "else `saving_s`), as a share of its own span; better / worse: the saving "
                  f"fell / rose by more than {c.threshold * 100:g}% of BEFORE's. "
              + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + "."]
    lines += ["", predicted_against_realized(c)]
    assumptions = assumption_lines(c)
    if assumptions:
        lines += ["", "What the savings assume:", ""] + assumptions
    return lines


def signed_saving(seconds: float) -> str:
    """A realized saving: `7.48 s`, or `-1.2 s` when the span grew."""
    return duration(seconds) if seconds >= 0 else "-" + duration(seconds)


def of_span(seconds: float, span: float | None) -> str:
    pct = share(seconds, span)
    return f", {pct} of its span" if pct else ""


def predicted_against_realized(c) -> str:
    realized = c.realized_saving
    moved = (f"the span fell {duration(realized)}" if realized > 0 else
             f"the span grew {duration(realized)}" if realized < 0 else "the span did not change")
    resolved = c.resolved

    def on_steps(predicted: float) -> str:
        # the span also holds start-up and what follows the loop, which no fix touches
        if (steps := c.realized_on_steps) is None:
            return ""
        before, after, batches, saved = steps
        part = f" ({100 * saved / predicted:.0f}% of the prediction)" if predicted > 0 else ""
        return (f" On the loop's steps, where the prices are made (the span also holds start-up, workers "
                f"starting, and what follows the loop), a batch took {duration(before)} before and "
                f"{duration(after)} after: {signed_saving(saved)} over BEFORE's {batches:,} batches{part}.")

    if not resolved:
        better = [f for f in c.findings if f.status == "better"]
        if not better:
            return f"**Predicted against realized:** no finding was resolved; {moved}.{on_steps(0.0)}"
        # Fixed in part: what BEFORE priced less what AFTER still prices is what the change was
        # to save (a habit fixed but for a remnant the profile still finds, say).
        fell = sum(f.saving_before - f.saving_after for f in better)
        of = f" ({100 * realized / fell:.0f}% of it)" if fell > 0 else ""
        names = ", ".join(f"`{one_line(f.id)}` ({duration(f.saving_before)} → {duration(f.saving_after)})"
                          for f in better)
        return (f"**Predicted against realized:** no finding was resolved outright; {len(better)} got better, "
                f"{names}: their prices fell {duration(fell)}, what the change was predicted to save; {moved}, a "
                f"realized saving of {signed_saving(realized)}{of}.{on_steps(fell)}")
    alone = any(is_number(f.before.get("saving_alone_s")) for f in resolved)
    # Several at once: the sum of `saving_s`, which in schema 2 counts what each fix adds to those
    # ranked above it (so they add up); in schema 1 each was priced alone.
    predicted = sum(f.before["saving_s"] if len(resolved) > 1 else f.saving_before for f in resolved)
    of = f" ({100 * realized / predicted:.0f}% of the prediction)" if predicted > 0 else ""
    others = [f for f in c.findings if f.status in ("new", "worse", "better")]
    also = (f" Other findings changed too ({', '.join(f'`{one_line(f.id)}` {f.status}' for f in others)}); "
            "their part is in the realized figure as well.") if others else ""
    if len(resolved) == 1:
        f = resolved[0]
        return (f"**Predicted against realized:** one finding was resolved, `{one_line(f.id)}`: BEFORE predicted "
                f"it would save {duration(f.saving_before)}{of_span(f.saving_before, c.before.span)}; {moved}, "
                f"a realized saving of {signed_saving(realized)}{of}, attributed to it.{on_steps(predicted)}{also}")
    return (f"**Predicted against realized:** {len(resolved)} findings were resolved at once, so what each "
            "saved cannot be separated. Their predicted savings sum to "
            f"{duration(predicted)}{of_span(predicted, c.before.span)} "
            + ("(`saving_s`: each counts what its fix adds to those ranked above it); " if alone else
               "(each priced alone: they may overlap, so the sum can overstate); ") +
            f"realized: {moved}, a saving of {signed_saving(realized)} in all{of}.{on_steps(predicted)}{also}")


def assumption_lines(c) -> list[str]:
    out = []
    for f in c.findings:
        texts = [(side, x.get("assumption")) for side, x in (("before", f.before), ("after", f.after))
                 if x is not None and isinstance(x.get("assumption"), str) and x.get("assumption").strip()]
        if len(texts) == 2 and one_line(texts[0][1]) == one_line(texts[1][1]):
            texts = [("both", texts[0][1])]
        for side, text in texts:
            out.append(f"- `{one_line(f.id)}` ({side}): {one_line(text)}")
    return out
