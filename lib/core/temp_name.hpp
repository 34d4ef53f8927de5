// The name of a temp file written beside a target and renamed over it (the report, the
// trace, a dataset): a name of its own, whatever the target's length.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace hdbench {

// ".NAME.tmp-PID" beside `target` made the temp name longer than the target's: a target near
// the file system's 255 bytes was checked writable and then lost after the run. The name is
// cut to 48 bytes, and a hash of the whole keeps two targets that share those bytes (a
// report and its trace, streamed at once into one folder) from sharing a temp file.
inline std::filesystem::path temp_path_beside(const std::filesystem::path& target) {
  const std::string name = target.filename().string();
  const auto hash = static_cast<std::uint32_t>(std::hash<std::string>{}(name));
  const std::filesystem::path parent = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  return parent / fmt::format(".{}-{:08x}.tmp-{}", name.substr(0, 48), hash, ::getpid());
}

}  // namespace hdbench
