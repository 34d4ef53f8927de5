// The one interface a benchmark family implements. A family owns its options: it
// declares its flags (with defaults and validation) into the FlagParser, in its own
// help group, and registers its benchmarks and derivations against the Suite. The
// list of families is bench/families.cpp; the core knows none of them.
#pragma once

#include <string>
#include <vector>

#include "core/family_description.hpp"
#include "core/flags.hpp"
#include "core/suite.hpp"

namespace hdbench {

class Family {
 public:
  virtual ~Family() = default;
  // The names --hdbench_families selects this family's benchmarks by, in run order
  // (most families have one; the transfer area has four).
  virtual std::vector<std::string> names() const = 0;
  // Declares the family's flags; the handlers write into the family's own options.
  virtual void declare_flags(FlagParser& flags, const OptionLimits& limits) = 0;
  // Registers the benchmarks (and derivations) of `name`, one of names().
  virtual void register_benchmarks(Suite& suite, const std::string& name) const = 0;
  // What the runs of `name`, one of names(), carry: their params, counters and NVTX
  // category (the report's context.hdbench.families.<name>).
  virtual FamilyDescription describe(const std::string& name) const = 0;
};

}  // namespace hdbench
