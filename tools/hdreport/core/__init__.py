"""The core room: what every other room of the report tools stands on. It imports only
itself (and the standard library; matplotlib and numpy where a figure is drawn).

    schema.py units.py writer.py  reading (and checking) a report; sizes and counts as text;
                                  writing one (the PyTorch baselines' report entries)
    described.py                  what a report says of its families (their descriptions;
                                  legacy_families.json for reports from before them)
    markdown.py noise.py          tables and names; how sure a number is
    facets.py bars.py style.py    line figures, bar figures, the look they share
    movement.py                   what the data-movement families' answers share (their
                                  skips; the transfer family's per-copy runs they read against)
    bandwidth.py                  what every copy bandwidth figure shares: its axis, the PCIe link
    feeding.py                    what the loader's and the MLP's epochs' answers share
"""
