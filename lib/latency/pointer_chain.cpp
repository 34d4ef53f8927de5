#include "latency/pointer_chain.hpp"

#include <numeric>
#include <stdexcept>
#include <utility>

#include "splitmix64.hpp"

namespace hdbench {

std::vector<std::uint64_t> make_pointer_chain(std::size_t nodes, std::size_t stride, std::uint64_t seed) {
  if (nodes < 2 || stride == 0) throw std::invalid_argument("a pointer chain needs 2 or more nodes and a stride");
  // Sattolo's algorithm: a uniformly random permutation with a single cycle.
  std::vector<std::size_t> order(nodes);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = nodes - 1; i > 0; --i) {
    const std::size_t j = static_cast<std::size_t>(splitmix64(seed + i) % i);  // j < i
    std::swap(order[i], order[j]);
  }
  // order[k] is the slot after slot k.
  std::vector<std::uint64_t> chain(nodes * stride, 0);
  for (std::size_t k = 0; k < nodes; ++k) chain[k * stride] = order[k] * stride;
  return chain;
}

std::uint64_t chase_end(const std::vector<std::uint64_t>& chain, std::uint64_t steps) {
  std::uint64_t node = 0;
  for (std::uint64_t i = 0; i < steps; ++i) node = chain[node];
  return node;
}

}  // namespace hdbench
