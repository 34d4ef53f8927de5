"""Interval arithmetic for `hdbench_profile`'s analysis: the union of GPU activity on a
device, how much of a copy ran under it, and which host call was in flight at a moment.

Times are integers (nanoseconds on CUPTI's clock); an interval is (start, end), end >= start.
"""

from __future__ import annotations

from bisect import bisect_right


class Union:
    """The union of intervals as sorted, disjoint (start, end) pairs: what was busy, counted once."""

    def __init__(self, intervals):
        merged: list[list[int]] = []
        for start, end in sorted(intervals):
            if merged and start <= merged[-1][1]:  # touching or overlapping: one busy stretch
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.spans = [(s, e) for s, e in merged]
        self.starts = [s for s, _ in self.spans]

    def length(self) -> int:
        return sum(e - s for s, e in self.spans)

    def overlap(self, start: int, end: int) -> int:
        """How much of [start, end] the union covers."""
        i = max(bisect_right(self.starts, start) - 1, 0)
        covered = 0
        while i < len(self.spans) and self.spans[i][0] < end:
            s, e = self.spans[i]
            covered += max(0, min(e, end) - max(s, start))
            i += 1
        return covered

    def idle_after(self, moment: int) -> int:
        """The idle gap that begins at `moment`: 0 when something is still busy past it, else
        the time until the next busy stretch starts (0 when nothing comes after)."""
        i = bisect_right(self.starts, moment) - 1
        if i >= 0 and self.spans[i][1] > moment:
            return 0  # another record was still running when this one ended
        if i + 1 < len(self.spans):
            return self.spans[i + 1][0] - moment
        return 0  # the last GPU work: the program ended, nothing starved


class Calls:
    """One host thread's calls (start, end, index); `covering(t)` finds one in flight at t.

    Calls on a thread do not normally overlap, but nothing here assumes so: with the running
    maximum of the ends, the call that reaches furthest among those started by t answers."""

    def __init__(self, calls):
        self.calls = sorted(calls)
        self.starts = [c[0] for c in self.calls]
        self.furthest: list[int] = []  # position of the call with the latest end among calls[0..i]
        best = -1
        for i, (_, end, _) in enumerate(self.calls):
            if best < 0 or end > self.calls[best][1]:
                best = i
            self.furthest.append(best)

    def covering(self, moment: int):
        """The index of a call with start <= moment <= end, or None."""
        i = bisect_right(self.starts, moment) - 1
        if i < 0:
            return None
        start, end, index = self.calls[self.furthest[i]]
        return index if end >= moment else None
