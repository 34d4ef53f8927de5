// What a batch of K tensors is (the batch_copy family's stated mix) and how it packs into
// one buffer: host-side pieces with tests of their own.
#pragma once

#include <cstddef>
#include <vector>

namespace hdbench {

// The mix: tensor i is kBatchMix[i % 8] bytes, from a 256 B label vector to a 4 MiB
// image block by factors of 4 (256 B, 1 KiB, 4 KiB, 16 KiB, 64 KiB, 256 KiB, 1 MiB,
// 4 MiB), so every K of 8 or more holds each size and small K hold the small ones.
inline constexpr std::size_t kBatchMix[] = {256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};
std::vector<std::size_t> batch_tensor_sizes(int tensors);

// Where each tensor starts in the packed buffer: in order, each at a multiple of
// `alignment` (a power of two), as a collate that packs keeps every tensor aligned.
std::vector<std::size_t> packed_offsets(const std::vector<std::size_t>& sizes, std::size_t alignment = 256);
// The packed buffer's size: the last offset plus the last size (0 for no tensors).
std::size_t packed_bytes(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& offsets);

// Copies tensor i (sources[i], sizes[i] bytes) to packed + offsets[i].
void gather_tensors(const std::vector<const void*>& sources, const std::vector<std::size_t>& sizes,
                    const std::vector<std::size_t>& offsets, void* packed);

}  // namespace hdbench
