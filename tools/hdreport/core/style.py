"""The look every hdbench figure shares, so a reader learns it once.

- A fixed colour per memory kind (and loader pinning mode, named after the memory it
  produces), per implementation (hdbench / PyTorch), per processor (CPU / GPU) and per
  dtype: the same in every figure. A family's own values (a pinning method, a streams
  variant) take the colours its room gives (`register_look`), the same in every figure too.
- Line style (and marker) for the engine, the MLP mode, the data source of a step and
  the transfer variant: solid is the plain case.
- Counts without a colour of their own (threads, batch, workers, chunk size) take
  ordered colours from one sequential palette, light to dark by value.
- Of a figure's params with fixed colours, the one that leaves the fewest series on one
  colour colours it (the MLP figures' GPU steps by their data source, not all green).
- Within one figure no two series share a colour: a second series of the same kind
  gets a shade of its kind's colour (and a line style of its own).
- Sizes in bytes are written KiB / MiB / GiB (binary), rates in GB/s (1e9 bytes/s).
"""

from __future__ import annotations

from collections import Counter

from hdreport.core import described
from hdreport.core.units import short_number, size_text  # noqa: F401  (figures write sizes as style.size_text)

# Fixed colours, by param and value: the values more than one family draws. A family's own
# values (a pinning method, a streams variant, a managed page policy) are its room's, given
# by `register_look` when the room's figures module is imported.
COLOURS = {
    "memory": {"pageable": "#d62728", "registered": "#9467bd", "pinned": "#1f77b4", "pinned_wc": "#17becf",
               "mapped": "#8c564b", "device": "#3b3b3b", "host": "#3b3b3b",
               "managed": "#e377c2"},  # cudaMallocManaged, as hdbench_profile's copy classes name it
    # The loader's pinning modes (its epochs' too): pageable slots, a pin thread's extra copy, straight into pinned slots.
    "pinning": {"pageable": "#d62728", "pin_thread": "#bcbd22", "direct": "#1f77b4"},
    "implementation": {"hdbench": "#4e79a7", "pytorch": "#f28e2b"},
    "processor": {"cpu": "#9c755f", "gpu": "#59a14f"},
    "dtype": {"fp32": "#76b7b2", "tf32": "#edc948", "bf16": "#b07aa1"},
    # A lone series of a family drawn beside copies of the memory kinds: the staging ring's own
    # colour (drawn in pinned memory's blue, it read as the pinned copy beside it)
    "family": {"staged": "#2ca02c"},
}
# Line styles, by param and value (the first value of each is solid).
LINESTYLES = {
    "engine": {"copy": "-", "sm": "--"},
    "mode": {"eager": "-", "graph": "--", "compile": ":"},
}
MARKERS = ["o", "s", "^", "D", "v", "P"]
ORDERED_STYLES = ["-", "--", ":", "-."]
# Ordered values (threads, batch, ...) sample this colormap from light-ish to dark; the
# yellow end of viridis is left out (unreadable on white).
ORDINAL_CMAP = "viridis"
ORDINAL_RANGE = (0.82, 0.05)
# Reference lines (link rate, GEMM peak, ideal): greys, darkest first.
REFERENCE_GREYS = ["#555555", "#8a8a8a", "#b0b0b0", "#2f2f2f"]
# At most this many series share one axes; figures with more are split.
MAX_SERIES = 6

PRETTY = {"h2d": "host → device", "d2h": "device → host", "bidir": "both directions",
          "malloc_host": "cudaMallocHost", "register": "cudaHostRegister", "pinned_wc": "pinned write-combined",
          "pin_thread": "pin thread", "per_copy": "", "reference_loop": "back-to-back copy loop",
          "hdbench": "hdbench", "pytorch": "PyTorch", "cpu": "CPU", "gpu": "GPU", "sm": "SM engine",
          "copy": "copy engine",
          # A param's own words for its values ("none" is also an augmentation) are its family's:
          # described.label, from the descriptions reports carry (value_text reads them first).
          "d2d": "device → device", "all_to_host": "every GPU → host", "host_to_all": "host → every GPU"}
# Values in reading order (others follow, numbers by value, text alphabetically): the shared
# ones here, each room's own after them (`register_look`).
_ORDERED = ["h2d", "d2h", "bidir", "copy", "sm", "pageable", "registered", "pinned", "pinned_wc", "mapped", "pin_thread",
            "direct", "device", "host", "fp32", "tf32", "bf16", "eager", "graph", "compile", "hdbench", "pytorch", "cpu",
            "gpu"]
ORDER = {v: i for i, v in enumerate(_ORDERED)}


def register_look(colours: dict | None = None, linestyles: dict | None = None, order: tuple = ()) -> None:
    """A family's own look, given by its room's figures module: colours and line styles by param
    and value, and its values in reading order (placed after those already known, so a room's
    order holds within its own values). A value given twice must look the same both times: two
    rooms that colour one value differently would make a figure's colours depend on which room
    drew first."""
    tables = ((COLOURS, colours or {}), (LINESTYLES, linestyles or {}))
    for table, given in tables:  # all checked before any is taken
        for key, values in given.items():
            for value, look in values.items():
                if table.get(key, {}).get(value, look) != look:
                    raise ValueError(f"{key}={value} is {table[key][value]} already; a room gives it {look}")
    for table, given in tables:
        for key, values in given.items():
            table.setdefault(key, {}).update(values)
    for value in order:
        if value not in ORDER:
            ORDER[value] = len(_ORDERED)
            _ORDERED.append(value)


# How a param's value reads in a label: `{}` is the value (pretty or size).
KEY_FORMAT = {"threads": "{} threads", "batch": "batch {}", "workers": "{} workers", "chunk_bytes": "{} chunks",
              "streams": "{} streams", "chunks": "{} chunks", "compute_ratio": "kernel {}× copy",
              "sample_cost_us": "{} µs/sample", "prefetch_depth": "depth {}", "data": "data: {}",
              "optimizer": "{}", "model": "{}", "source": "{}", "consumer": "{} consumer", "bytes": "{}",
              "ranks": "{} ranks", "device_count": "{} GPUs"}
SIZE_KEYS = {"bytes", "chunk_bytes"}


def value_text(key: str, value) -> str:
    if key in SIZE_KEYS and isinstance(value, (int, float)):
        text = size_text(value)
    elif isinstance(value, float):
        text = f"{value:g}"
    else:
        text = described.label(key, str(value)) or PRETTY.get(str(value), str(value))
    text = KEY_FORMAT.get(key, "{}").format(text)
    return text[:-1] if text in ("1 threads", "1 workers", "1 ranks", "1 GPUs") else text


def label_of(keys: tuple[str, ...], params: dict) -> str:
    """A series' label: its values in words, joined by `, `."""
    return ", ".join(t for t in (value_text(k, params[k]) for k in keys if params.get(k) is not None) if t)


def mix(colour: str, towards: str, amount: float) -> str:
    """`colour` moved `amount` (0..1) of the way to `towards`, both #rrggbb."""
    a = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(towards[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(a, b))


SHADES = [("#000000", 0.0), ("#ffffff", 0.45), ("#000000", 0.35), ("#ffffff", 0.7), ("#000000", 0.6)]


def ordinal_colours(n: int) -> list[str]:
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps[ORDINAL_CMAP]
    lo, hi = ORDINAL_RANGE
    return [to_hex(cmap(lo + (hi - lo) * (i / max(n - 1, 1)))) for i in range(n)] if n > 1 else [to_hex(cmap(0.35))]


def assign_styles(series_keys: tuple[str, ...], all_params: list[dict]) -> dict[tuple, dict]:
    """{series values: {colour, linestyle, marker}} for the series of one figure.

    The colour comes from the key with fixed colours that tells the series apart best
    (`colour_key_of`; else ordered colours by the first key's value); line style and marker
    from the first other key with line styles, else by rank of the remaining keys. Series
    sharing a colour get shades."""
    values = sorted({tuple(p.get(k) for k in series_keys) for p in all_params}, key=_order)
    colour_key = colour_key_of(series_keys, values)
    style_keys = [k for k in series_keys if k != colour_key]
    ordinal = None
    if colour_key is not None and colour_key not in COLOURS:
        ranks = sorted({v[series_keys.index(colour_key)] for v in values}, key=_order_one)
        ordinal = dict(zip(ranks, ordinal_colours(len(ranks))))
    rest_ranks = sorted({tuple(v[series_keys.index(k)] for k in style_keys) for v in values}, key=_order)
    styles, used = {}, {}
    for v in values:
        named = dict(zip(series_keys, v))
        if colour_key is None:
            base = _shared_colour(all_params) or "#1f77b4"
        elif ordinal is not None:
            base = ordinal[named[colour_key]]
        else:
            base = COLOURS[colour_key].get(str(named[colour_key]), "#7f7f7f")
        rest = tuple(named[k] for k in style_keys)
        rank = rest_ranks.index(rest)
        # the colour's key too: a graph step is dashed where its mode alone tells the series apart
        linestyle = next((LINESTYLES[k].get(str(named[k])) for k in style_keys + [colour_key]
                          if k in LINESTYLES and str(named[k]) in LINESTYLES[k]), None)
        if linestyle is None:
            linestyle = ORDERED_STYLES[rank % len(ORDERED_STYLES)]
        n = used.get(base, 0)
        used[base] = n + 1
        towards, amount = SHADES[n % len(SHADES)]
        styles[v] = {"color": mix(base, towards, amount), "linestyle": linestyle,
                     "marker": MARKERS[len(styles) % len(MARKERS)]}
    return styles


def _shared_colour(all_params: list[dict]) -> str | None:
    """Where no key tells the series apart, the colour of what every point shares: PyTorch's,
    else the processor's (a lone CPU step drew in pinned memory's blue), else the family's, the
    loader's pinning or the memory kind's (a lone pin-thread loader line drew in direct's blue)."""
    for key in ("implementation", "processor", "family", "pinning", "memory"):
        values = {str(p.get(key)) for p in all_params}
        value = values.pop() if len(values) == 1 else None
        if value in COLOURS[key] and (key, value) != ("implementation", "hdbench"):
            return COLOURS[key][value]
    return None


def colour_key_of(series_keys: tuple[str, ...], values: list[tuple]) -> str | None:
    """Of the keys with fixed colours, the one whose colours leave the fewest of the figure's
    series (`values`, one tuple a series) on one colour, then the one giving the most colours;
    the first such in `series_keys`. A reader tells two shades of a colour apart, not four:
    the MLP figures' GPU steps, all of one processor, are told apart by their data source's
    colour. Without fixed colours, the first key (ordered colours by its value)."""
    fixed = [k for k in series_keys if k in COLOURS]
    if not fixed:
        return series_keys[0] if series_keys else None

    def crowding(key: str) -> tuple[int, int]:
        i = series_keys.index(key)
        bases = Counter(COLOURS[key].get(str(v[i]), "#7f7f7f") for v in values)
        return max(bases.values(), default=0), -len(bases)

    return min(fixed, key=crowding)  # min keeps the first of equals


def _order_one(value):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value, "")
    return (0, ORDER.get(str(value), len(ORDER)), str(value))


def _order(values: tuple):
    return [_order_one(v) for v in values]


def size_axis(axis, values) -> None:
    """Log-2 axis ticked at the sizes drawn, written KiB / MiB / GiB."""
    ticks = sorted(set(values))
    axis.set_ticks(ticks, [size_text(t) for t in ticks])
    axis.set_minor_locator(_null_locator())


def crowded_log2_ticks(values, share: float = 0.2) -> bool:
    """Whether two neighbouring ticks of a log-2 axis lie closer than `share` of its span
    (64 MiB and 256 MiB on a 4 KiB..256 MiB axis: 2 of 16 octaves), where labels written
    level ("256 MiB") print over each other in a panel a few inches wide; or more than 4 ticks."""
    import math

    octaves = sorted({math.log2(v) for v in values if v > 0})
    if len(octaves) > 4:
        return True
    if len(octaves) < 2:
        return False
    gaps = [b - a for a, b in zip(octaves, octaves[1:])]
    return min(gaps) < share * (octaves[-1] - octaves[0])


def _null_locator():
    from matplotlib.ticker import NullLocator

    return NullLocator()


def count_axis(axis, values) -> None:
    """Ticks at the counts drawn (batch sizes, workers), written as plain numbers."""
    ticks = sorted(set(values))
    axis.set_ticks(ticks, [f"{t:g}" for t in ticks])
    axis.set_minor_locator(_null_locator())


def readable_log_ticks(lo: float, hi: float) -> list[float] | None:
    """Where a log axis from `lo` to `hi` has fewer than two decades in view, ticks that put
    at least three labels on it: 1, 2 and 5 of each decade, else 1, 2, 3 and 5, else finer
    steps, else (a span inside one of those) a few round values; None where two decades are in
    view (matplotlib's own ticks). Two labels were too few: an H200's device copies, widened to
    a factor of 3, were read from 2k and 3k alone, the 3k at the axis' top edge."""
    import math

    from matplotlib.ticker import MaxNLocator

    if not 0 < lo < hi:
        return None
    decades = [10.0 ** k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    if sum(lo <= d <= hi for d in decades) >= 2:
        return None
    for steps in ((1, 2, 5), (1, 2, 3, 5), (1, 1.5, 2, 3, 4, 5, 6, 8)):
        ticks = [t for t in sorted(d * m for d in decades for m in steps) if lo <= t <= hi]
        if len(ticks) >= 3:
            return ticks
    return [t for t in MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi) if lo <= t <= hi]


def plain_log_axis(axis) -> None:
    """Log axis ticks written 0.1, 1, 10, 100 (not 10^2); an axis with fewer than two decades
    in view gets its ticks from readable_log_ticks, so every panel can be read (a CPU step's
    samples/s from 1.55 to 1.68 M once showed no label at all)."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    class Readable(LogLocator):
        def tick_values(self, vmin, vmax):
            ticks = readable_log_ticks(min(vmin, vmax), max(vmin, vmax))
            return super().tick_values(vmin, vmax) if ticks is None else ticks

    axis.set_major_locator(Readable(base=10))
    axis.set_major_formatter(FuncFormatter(lambda v, _: short_number(v)))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def natural(text) -> tuple:
    """Sort key: known values in reading order, then `batch 128` before `batch 1024`."""
    import re

    text = str(text)
    if text in ORDER:
        return (0, ORDER[text], [])
    return (1, 0, [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text)])


def finish(fig, handles: dict, ncol: int, title_lines: int) -> None:
    """A shared legend under the panels and room for the title above, sized in inches
    so tall and short figures get the same margins."""
    height = fig.get_figheight()
    rows = (len(handles) + ncol - 1) // ncol if handles else 0
    bottom = (0.12 + 0.24 * rows) / height if rows else 0.0
    top = 1  # tight_layout leaves room for the suptitle itself
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=ncol, frameon=False, fontsize=9,
                   bbox_to_anchor=(0.5, 0.01))
    fig.tight_layout(rect=(0, bottom, 1, top))
