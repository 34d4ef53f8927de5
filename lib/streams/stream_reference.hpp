// The CPU side of the streams family's check: the same per-word work the GPU kernel
// does (kernels/stream_work.hpp), over whole buffers, on several threads when the
// buffer is large.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace hdbench {

// out[i] = stream_work::process_word(in[i], rounds) for i < count.
void process_words_cpu(const std::uint32_t* in, std::uint32_t* out, std::size_t count, int rounds);

// Index of the first word where `actual` differs from `expected`, or nullopt.
std::optional<std::size_t> find_word_mismatch(const std::uint32_t* actual, const std::uint32_t* expected,
                                              std::size_t count);

}  // namespace hdbench
