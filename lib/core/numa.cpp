#include "core/numa.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#if HDBENCH_HAVE_LIBNUMA
#include <numa.h>
#include <numaif.h>
#endif

#include "core/system.hpp"

namespace hdbench::numa {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path node_dir(const std::string& root, int id) {
  return std::filesystem::path(root) / "devices/system/node" / fmt::format("node{}", id);
}

std::uint64_t node_memory(const std::filesystem::path& dir) {
  std::istringstream lines(slurp(dir / "meminfo"));
  std::string line;
  while (std::getline(lines, line)) {
    // "Node 0 MemTotal:       16384000 kB"
    const auto at = line.find("MemTotal:");
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + 9));
    std::uint64_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    part.erase(
        std::remove_if(part.begin(), part.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
        part.end());
    if (part.empty()) continue;
    int first = 0, last = 0;
    const auto dash = part.find('-');
    const char* begin = part.data();
    const char* end = part.data() + part.size();
    if (dash == std::string::npos) {
      if (std::from_chars(begin, end, first).ec != std::errc()) continue;
      last = first;
    } else if (std::from_chars(begin, begin + dash, first).ec != std::errc() ||
               std::from_chars(begin + dash + 1, end, last).ec != std::errc()) {
      continue;
    }
    for (int cpu = first; cpu <= last && cpu - first < 1 << 16; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

std::vector<Node> read_nodes(const std::string& sysfs_root) {
  std::vector<Node> nodes;
  std::error_code ec;
  std::filesystem::directory_iterator it(std::filesystem::path(sysfs_root) / "devices/system/node", ec);
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= 4 || !name.starts_with("node") || name.find_first_not_of("0123456789", 4) != std::string::npos) {
      continue;
    }
    Node node;
    node.id = std::stoi(name.substr(4));
    node.cpus = parse_cpu_list(slurp(it->path() / "cpulist"));
    node.memory_bytes = node_memory(it->path());
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) { return a.id < b.id; });
  return nodes;
}

std::optional<int> far_node(const std::vector<Node>& nodes, int near, const std::string& sysfs_root) {
  if (nodes.size() < 2) return std::nullopt;
  // distance lists node near's distance to node 0, 1, ... in id order.
  std::istringstream distances(slurp(node_dir(sysfs_root, near) / "distance"));
  std::vector<int> by_id;
  for (int d = 0; distances >> d;) by_id.push_back(d);
  std::optional<int> best;
  int best_distance = -1;
  for (const Node& node : nodes) {
    if (node.id == near) continue;
    const int distance = node.id < static_cast<int>(by_id.size()) ? by_id[static_cast<std::size_t>(node.id)] : 0;
    if (!best || distance > best_distance) {
      best = node.id;
      best_distance = distance;
    }
  }
  return best;
}

std::string far_node_skip_reason(const std::vector<Node>& nodes) {
  if (nodes.size() >= 2) return "";
  return fmt::format("one NUMA node on this machine ({}): no far node to place host memory on",
                     nodes.empty() ? "kernel without NUMA support" : "node " + std::to_string(nodes.front().id));
}

bool binding_available(std::string* reason) {
#if HDBENCH_HAVE_LIBNUMA
  if (numa_available() >= 0) return true;
  if (reason != nullptr) *reason = "libnuma: numa_available() says this kernel has no NUMA policy support";
  return false;
#else
  if (reason != nullptr) *reason = "built without libnuma (Debian: libnuma-dev)";
  return false;
#endif
}

Placement bind_and_touch(void* data, std::size_t bytes, int node) {
  std::string reason;
  if (!binding_available(&reason)) throw std::runtime_error(reason);
  if (data == nullptr || bytes == 0) throw std::invalid_argument("bind_and_touch: empty buffer");
#if HDBENCH_HAVE_LIBNUMA
  numa_tonode_memory(data, bytes, node);
#endif
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* bytes_ptr = static_cast<unsigned char*>(data);
  for (std::size_t offset = 0; offset < bytes; offset += page) bytes_ptr[offset] = 0;
  bytes_ptr[bytes - 1] = 0;
  return {node, system::numa_node_of_address(bytes_ptr), system::numa_node_of_address(bytes_ptr + bytes - 1)};
}

Placement read_back(const void* data, std::size_t bytes, int requested) {
  if (data == nullptr || bytes == 0) return {requested, -1, -1};
  const auto* first = static_cast<const unsigned char*>(data);
  return {requested, system::numa_node_of_address(first), system::numa_node_of_address(first + bytes - 1)};
}

PreferredNodeScope::PreferredNodeScope(int node) {
#if HDBENCH_HAVE_LIBNUMA
  if (node < 0 || !binding_available()) return;
  const int max_node = numa_max_node();
  if (node > max_node) return;
  constexpr std::size_t kBits = 8 * sizeof(unsigned long);
  // get_mempolicy wants room for every possible node; numa_num_possible_nodes() covers it.
  const auto possible = static_cast<std::size_t>(std::max(numa_num_possible_nodes(), max_node + 1));
  previous_mask_.assign((possible + kBits - 1) / kBits, 0);
  if (get_mempolicy(&previous_mode_, previous_mask_.data(), previous_mask_.size() * kBits, nullptr, 0) != 0) return;
  std::vector<unsigned long> mask(previous_mask_.size(), 0);
  mask[static_cast<std::size_t>(node) / kBits] |= 1UL << (static_cast<std::size_t>(node) % kBits);
  active_ = set_mempolicy(MPOL_PREFERRED, mask.data(), mask.size() * kBits) == 0;
#else
  (void)node;
#endif
}

PreferredNodeScope::~PreferredNodeScope() {
#if HDBENCH_HAVE_LIBNUMA
  if (!active_) return;
  constexpr std::size_t kBits = 8 * sizeof(unsigned long);
  // MPOL_DEFAULT takes no mask; the others take the one they had.
  if (previous_mode_ == MPOL_DEFAULT) {
    set_mempolicy(MPOL_DEFAULT, nullptr, 0);
  } else {
    set_mempolicy(previous_mode_, previous_mask_.data(), previous_mask_.size() * kBits);
  }
#endif
}

}  // namespace hdbench::numa
