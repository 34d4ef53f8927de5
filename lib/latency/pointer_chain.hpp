// The chain a pointer chase follows (nvbandwidth's method for host-device latency,
// written afresh): `nodes` slots `stride` words apart, each holding the word index of
// the next slot of one random cycle through all of them, so no load can start before
// the one before it ends and no prefetcher can guess the next. Host-side, tested here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hdbench {

// nodes * stride words; slot k at word k * stride. One cycle through every slot (Sattolo's
// shuffle from splitmix64(seed)), starting at slot 0. Throws for nodes < 2 or stride 0.
std::vector<std::uint64_t> make_pointer_chain(std::size_t nodes, std::size_t stride, std::uint64_t seed);

// Where a chase of `steps` loads from word 0 stops: what the kernel must report.
std::uint64_t chase_end(const std::vector<std::uint64_t>& chain, std::uint64_t steps);

}  // namespace hdbench
