// NUMA nodes and host-memory placement: the nodes and their CPUs as sysfs lists them
// (a root is given, so tests use a fake sysfs with several nodes), a GPU's near and
// far node, and binding a buffer's pages to a node through libnuma, then reading back
// the node each page actually landed on (get_mempolicy), never assuming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hdbench::numa {

struct Node {
  int id = 0;
  std::vector<int> cpus;           // from <root>/devices/system/node/nodeN/cpulist
  std::uint64_t memory_bytes = 0;  // MemTotal of nodeN/meminfo; 0 if unreadable
};

// The online nodes under <sysfs_root>/devices/system/node, by id; empty when the
// kernel has no NUMA support (one node in effect).
std::vector<Node> read_nodes(const std::string& sysfs_root = "/sys");
// "0-3,8,10-11" → {0,1,2,3,8,10,11}; malformed parts are ignored.
std::vector<int> parse_cpu_list(const std::string& text);

// The node farthest from `near` by the kernel's distance table
// (<root>/devices/system/node/node<near>/distance), or the lowest other node when it
// is unreadable; nullopt on a one-node machine.
std::optional<int> far_node(const std::vector<Node>& nodes, int near, const std::string& sysfs_root = "/sys");
// Why a far-node case cannot run here ("one NUMA node: ..."), or empty when it can.
std::string far_node_skip_reason(const std::vector<Node>& nodes);

// libnuma is usable (linked, and numa_available() >= 0); else why not.
bool binding_available(std::string* reason = nullptr);
// Binds [data, data + bytes) to `node` (page-aligned start expected), writes every
// page so it is allocated there, and returns the node the first and last pages
// report (-1 unknown). Throws std::runtime_error when binding is unavailable.
struct Placement {
  int requested = -1;
  int first_page = -1;
  int last_page = -1;
  bool landed() const noexcept { return first_page == requested && last_page == requested; }
};
Placement bind_and_touch(void* data, std::size_t bytes, int node);

// The node the first and last pages of [data, data + bytes) report, for memory
// allocated elsewhere (e.g. under a PreferredNodeScope); requested is left as given.
Placement read_back(const void* data, std::size_t bytes, int requested);

// While it lives, pages this thread allocates come from `node` first (set_mempolicy,
// MPOL_PREFERRED), for memory whose allocation is not ours to mbind: cudaMallocHost's
// pages and pageable buffers first touched in a constructor. Preferred, not bound: a
// full node falls back instead of failing (or waking the OOM killer), and read_back
// says where the pages went. node < 0, or libnuma unavailable: does nothing. The
// thread's previous policy is restored at the end.
class PreferredNodeScope {
 public:
  explicit PreferredNodeScope(int node);
  ~PreferredNodeScope();
  PreferredNodeScope(const PreferredNodeScope&) = delete;
  PreferredNodeScope& operator=(const PreferredNodeScope&) = delete;
  bool active() const noexcept { return active_; }

 private:
  bool active_ = false;
  int previous_mode_ = 0;
  std::vector<unsigned long> previous_mask_;
};

}  // namespace hdbench::numa
