#include "batch_copy/batch_mix.hpp"

#include <cstring>
#include <stdexcept>

namespace hdbench {

std::vector<std::size_t> batch_tensor_sizes(int tensors) {
  std::vector<std::size_t> sizes;
  for (int i = 0; i < tensors; ++i) sizes.push_back(kBatchMix[static_cast<std::size_t>(i) % std::size(kBatchMix)]);
  return sizes;
}

std::vector<std::size_t> packed_offsets(const std::vector<std::size_t>& sizes, std::size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw std::invalid_argument("packed_offsets: the alignment must be a power of two");
  }
  std::vector<std::size_t> offsets;
  std::size_t next = 0;
  for (const std::size_t size : sizes) {
    offsets.push_back(next);
    next = (next + size + alignment - 1) & ~(alignment - 1);
  }
  return offsets;
}

std::size_t packed_bytes(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& offsets) {
  return sizes.empty() ? 0 : offsets.back() + sizes.back();
}

void gather_tensors(const std::vector<const void*>& sources, const std::vector<std::size_t>& sizes,
                    const std::vector<std::size_t>& offsets, void* packed) {
  auto* out = static_cast<unsigned char*>(packed);
  for (std::size_t i = 0; i < sources.size(); ++i) std::memcpy(out + offsets[i], sources[i], sizes[i]);
}

}  // namespace hdbench
