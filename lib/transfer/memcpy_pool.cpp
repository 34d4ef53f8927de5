#include "transfer/memcpy_pool.hpp"

#include <cstring>

#include "core/chunking.hpp"

namespace hdbench {

void MemcpyPool::copy(void* dst, const void* src, std::size_t bytes) {
  const std::vector<Chunk> shares = split_evenly(bytes, static_cast<std::size_t>(threads()));
  team_.run([&](int index) {
    const Chunk share = shares[static_cast<std::size_t>(index)];
    std::memcpy(static_cast<unsigned char*>(dst) + share.offset, static_cast<const unsigned char*>(src) + share.offset,
                share.bytes);
  });
}

}  // namespace hdbench
