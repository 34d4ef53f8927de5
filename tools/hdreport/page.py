"""`html REPORT... -o FILE.html`: one self-contained page a person reads at a glance.

The page holds the machine the reports came from, the summary's questions (each with
links to its figures, each figure with a link back to its question), every figure
inlined as SVG (text kept as text, so the page is searchable), and what failed or was
skipped. Nothing on the page is fetched: no scripts, no style sheets, no fonts or
images from elsewhere.
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

from hdreport import figures, summary
from hdreport.core import noise
from hdreport.core.markdown import machine_name, made_by, slug
from hdreport.families import mlp
from hdreport.profile.figures import command_text

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 1180px; padding: 1.5em 2em 4em; color: #1d1d1d; line-height: 1.45; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; } h2 { margin-top: 2.2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.86em; }
th, td { border: 1px solid #d6d6d6; padding: 0.25em 0.55em; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.9em; background: #f5f5f5; padding: 0 0.2em; word-break: break-all; }
figure { margin: 1.2em 0 2em; } figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.85em; color: #555; } nav ol { columns: 2; } .figlinks { font-size: 0.9em; }
.machine td:first-child { font-weight: 600; white-space: nowrap; } .note { color: #666; font-size: 0.9em; }
"""


def inline(text: str) -> str:
    """Markdown's **bold**, `code` and [links](#within-the-page) inside escaped text."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r"<a href='\2'>\1</a>", out)  # links within the page
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def markdown(lines: list[str]) -> str:
    """The summary's Markdown (list items, tables, paragraphs) as HTML."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_table(block))
            continue
        if line.startswith("- "):
            items = []
            while i < len(lines) and (lines[i].startswith("- ") or lines[i].startswith("  ")):
                if lines[i].startswith("- "):
                    items.append(lines[i][2:])
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            out.append("<ul>" + "".join(f"<li>{inline(t)}</li>" for t in items) + "</ul>")
            continue
        if line.strip():
            out.append(f"<p>{inline(line)}</p>")
        i += 1
    return "\n".join(out)


def _cells(row: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def _table(block: list[str]) -> str:
    header, align, rows = _cells(block[0]), _cells(block[1]), [_cells(r) for r in block[2:]]
    right = [a.endswith(":") for a in align]
    head = "".join(f"<th>{inline(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td{' class=num' if right[j] else ''}>{inline(c)}</td>"
                                    for j, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def svg_of(fig, name: str) -> str:
    """A figure as an inline <svg> element: text as text, ids unique to the figure."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    # ids are salted per figure but short ones (the legend, axes) repeat: prefix every id.
    prefix = "f" + re.sub(r"[^A-Za-z0-9]", "", name)[:40] + "-"
    text = re.sub(r'id="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', text)
    text = re.sub(r'(xlink:href|href)="#([^"]+)"', lambda m: f'{m.group(1)}="#{prefix}{m.group(2)}"', text)
    text = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", text)
    return text.replace("<svg ", f'<svg role="img" aria-label="{html.escape(name)}" ', 1)


def anchor(name: str) -> str:
    return "fig-" + re.sub(r"[^A-Za-z0-9_.-]", "-", name)


def machine_table(reports: list[tuple[str, dict]]) -> str:
    hd = reports[0][1]["context"]["hdbench"]
    system = hd.get("system", {})
    host = system.get("host", {})
    rows = [("host", f"{reports[0][1]['context'].get('host_name', '?')}: {host.get('cpu_model', '?')}, "
                     f"{host.get('logical_cores', '?')} logical cores, "
                     f"{host.get('memory_total_bytes', 0) / 2**30:.0f} GiB, {host.get('numa_nodes', '?')} NUMA node(s), "
                     f"kernel {host.get('kernel', '?')}")]
    for g in system.get("gpus", []):
        link, top = g.get("pcie_link_current", {}), g.get("pcie_link_max", {})
        rows.append((f"GPU {g.get('index', 0)}",
                     f"{g.get('name', '?')}, compute capability {g.get('compute_capability_major', '?')}."
                     f"{g.get('compute_capability_minor', '?')}, {g.get('sm_count', '?')} SMs, "
                     f"{g.get('total_memory_bytes', 0) / 2**30:.0f} GiB, {g.get('copy_engines', '?')} copy engines; "
                     f"PCIe Gen{link.get('generation', '?')} x{link.get('width', '?')} (max Gen"
                     f"{top.get('generation', '?')} x{top.get('width', '?')}, "
                     f"{g.get('pcie_link_max_gbps', 0):.1f} GB/s per direction)"))
    if not system.get("gpus"):
        rows.append(("GPU", f"none usable ({system.get('gpu_unavailable_reason', '?')})"))
    rows.append(("CUDA", f"driver {system.get('driver_version_string', '?')}, "
                         f"runtime {system.get('runtime_version_string', '?')}"))
    for path, report in reports:
        rhd = report["context"]["hdbench"]
        what = f"PyTorch {rhd['torch_version']}" if rhd.get("implementation") == "pytorch" else \
            made_by(rhd, "hdbench", (rhd.get("build_type") or "build type not recorded",))
        args = " ".join(rhd.get("options", {}).get("arguments", []))
        runs = f"{len(report['benchmarks'])} benchmarks"
        if "profile" in report:  # hdbench_profile's report: the program it ran, not a count of no benchmarks
            what = made_by(rhd, "hdbench_profile")
            runs = f"a profile of <code>{html.escape(command_text(report['profile']))}</code>"
        rows.append((Path(path).name, f"{what}, {rhd.get('started_at', '?')}; {runs}; "
                                      f"arguments: <code>{html.escape(args) or '(defaults)'}</code>"))
    body = "".join(f"<tr><td>{html.escape(k)}</td><td>{v if k not in ('host', 'CUDA') and not k.startswith('GPU') else html.escape(v)}</td></tr>"
                   for k, v in rows)
    return f"<table class=machine>{body}</table>"


def page(reports: list[tuple[str, dict]]) -> str:
    import matplotlib.pyplot as plt

    built, left_out = figures.build_figures(reports)
    merged = summary.merge(reports)
    answers = summary.answers(merged)
    sections = summary.sections(reports)  # a profile's, shown first; [] for most reports
    only_sections = summary.sections_only_title(reports)
    owner: dict[str, str] = {}  # figure -> the question it is shown under
    wanted: dict[str, list[str]] = {}
    for key, _, _, prefixes in sections + answers:
        wanted[key] = [n for n in built if any(n.startswith(p) for p in prefixes)]
        for n in wanted[key]:
            owner.setdefault(n, key)
    title = inline(only_sections) if only_sections else \
        f"hdbench: {html.escape(machine_name(reports[0][1]['context']))}"
    out = ["<!DOCTYPE html>", "<html lang=en><head><meta charset=utf-8>",
           "<meta name=viewport content='width=device-width, initial-scale=1'>",
           f"<title>{re.sub('<[^>]+>', '', title)}</title><style>{STYLE}</style></head><body>", f"<h1>{title}</h1>"]
    if not only_sections:
        several = [markdown([summary.runs_line(merged)])] if len(reports) > 1 else []
        out += [markdown(summary.headlines(merged)), *several,
                "<p class=note>GB/s means 1e9 bytes per second; KiB/MiB/GiB are binary. "
                "Each answer names the benchmarks it came from; each figure links back to its question.</p>"]
    for key, heading, lines, _ in sections:
        out += _section(key, inline(heading), lines, wanted[key], owner, built, heading.replace("`", ""))
    # the summary's closing glossary: the terms the page's text uses
    glossary = summary.glossary([line for _, _, lines, _ in sections + answers for line in lines])
    glossary_html = ["<section id=glossary><h2>Glossary</h2>", markdown(glossary[2:]), "</section>"] if glossary else []
    if only_sections:  # a profile alone: no benchmark questions, failures or skips to list
        out += ["<p class=note>GB/s means 1e9 bytes per second; KiB/MiB/GiB are binary.</p>",
                "<h2 id=machine>The machine and the run</h2>", machine_table(reports), *glossary_html,
                "</body></html>", ""]
        for fig in built.values():
            plt.close(fig)
        return "\n".join(out)
    # The same warnings as the summary: throttled clocks, and runs whose noise did not settle.
    throttled, noise_table = mlp.summary.gpu_throttling(merged), noise.by_family(merged)
    if throttled or noise_table:
        out += ["<section id=noise><h2>How sure the figures are</h2>", markdown(throttled + [""] + noise_table),
                "</section>"]
    out += ["<h2 id=machine>The machine and the runs</h2>", machine_table(reports),
           "<nav><h2 id=questions>Questions</h2><ol>"]
    answered, unanswerable = summary.folded(answers, len(reports) > 1)  # the summary's one section of those
    out += [f"<li><a href='#q-{key}'>{html.escape(q)}</a></li>" for key, q, _, _ in answered]
    if unanswerable:
        out.append(f"<li><a href='#cannot-answer'>{html.escape(unanswerable[0].removeprefix('## '))}</a></li>")
    out += ["<li><a href='#not-measured'>Failures and skips</a></li></ol></nav>"]
    for key, question, lines, _ in answered:
        out += _section(key, html.escape(question), lines, wanted[key], owner, built, question)
    if unanswerable:
        out += [f"<section id='cannot-answer'><h2>{html.escape(unanswerable[0].removeprefix('## '))}</h2>",
                markdown(unanswerable[2:]), "</section>"]
    rest = [n for n in built if n not in owner]
    if rest:
        out.append("<section id='q-other'><h2>Other figures</h2>")
        out += [_figure(n, built[n], "other", "Other figures") for n in rest]
        out.append("</section>")
    out.append("<section id='not-measured'><h2>Failures and skips</h2>")
    missing = summary.not_measured(merged)
    out.append(markdown(missing) if missing else "<p>Every benchmark in these reports ran and succeeded.</p>")
    if left_out:
        out.append(f"<p>Left out of the figures ({len(left_out)}):</p>")
        out.append("<ul>" + "".join(f"<li><code>{html.escape(line)}</code></li>" for line in left_out) + "</ul>")
    out += ["</section>", *glossary_html, "</body></html>", ""]
    for fig in built.values():
        plt.close(fig)
    return "\n".join(out)


def _section(key: str, heading: str, lines: list[str], wanted: list[str], owner: dict, built: dict,
             question: str) -> list[str]:
    """A question's section: its heading (HTML), its answer, links to its figures and those it owns."""
    # The summary's links go to the heading's GitHub id (slug); figures link back by key.
    out = [f"<section id='q-{key}'><h2 id='{slug(question)}'>{heading}</h2>", markdown(lines)]
    if wanted:
        links = ", ".join(f"<a href='#{anchor(n)}'>{html.escape(n)}</a>" for n in wanted)
        out.append(f"<p class=figlinks>Figures: {links}</p>")
    for n in wanted:
        if owner[n] == key:
            out.append(_figure(n, built[n], key, question))
    out.append("</section>")
    return out


def _figure(name: str, fig, key: str, question: str) -> str:
    return (f"<figure id='{anchor(name)}'>{svg_of(fig, name)}<figcaption><code>{html.escape(name)}</code> · "
            f"<a href='#q-{key}'>↑ {html.escape(question)}</a></figcaption></figure>")
