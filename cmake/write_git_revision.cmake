# Run at every build (lib/CMakeLists.txt, target hdbench_git_revision): writes OUT, a source
# file with the tree's revision (git describe, "-dirty" for uncommitted changes), and only
# when the revision changed, so a build after a commit relinks with the new one and a build
# without one compiles nothing. (Read at configure time, a report named the revision the
# build folder was configured at, commits earlier.)
#   cmake -DSOURCE_DIR=<checkout> -DOUT=<file.cpp> -P write_git_revision.cmake
execute_process(
  COMMAND git describe --always --dirty --abbrev=12
  WORKING_DIRECTORY "${SOURCE_DIR}"
  OUTPUT_VARIABLE revision
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT revision)
  set(revision "unknown")
endif()
set(text "// Written by cmake/write_git_revision.cmake at build time: the tree's revision.\n#include \"core/git_revision.hpp\"\n\nconst char* hdbench::git_revision() noexcept { return \"${revision}\"; }\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
