// The revision of the tree the binary was built from (git describe, "-dirty" when it had
// uncommitted changes; "unknown" outside a checkout). Its source is written at build time
// by cmake/write_git_revision.cmake, so it is never the revision of an older configure.
#pragma once

namespace hdbench {

const char* git_revision() noexcept;

}  // namespace hdbench
