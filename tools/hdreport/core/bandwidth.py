"""What every copy bandwidth figure shares, whichever family draws it: the y axis's label,
and the PCIe link's rate as its reference lines."""

from __future__ import annotations

BANDWIDTH = "GB/s (1e9 bytes/s)"


def link_rates(spec, panel: dict, reports) -> list[tuple[float, str]]:
    """The PCIe link's theoretical rate of each GPU in the reports; twice it where a
    panel shows both directions at once."""
    rates = sorted({g["pcie_link_max_gbps"] for _, r, _ in reports
                    for g in r["context"]["hdbench"].get("system", {}).get("gpus", []) if g.get("pcie_link_max_gbps")})
    if panel.get("direction") == "bidir":
        return [(2 * r, f"PCIe link ×2 (both directions) {2 * r:.1f} GB/s") for r in rates]
    return [(r, f"PCIe link {r:.1f} GB/s") for r in rates]
