"""What the answers about feeding a consumer batches share (the loader family's and the MLP
family's training epochs): the loader's pinning modes in reading order, and the share of the
best rate within which fewer workers count as keeping the consumer fed too."""

from __future__ import annotations

# The loader's pinning modes in reading order: pageable slots, a pin thread's extra copy, straight into pinned slots.
PINNING_ORDER = {"pageable": 0, "pin_thread": 1, "direct": 2}

# Fewer workers within this share of the best rate count as keeping the consumer fed too.
FED_FRACTION = 0.95
