// Every owner's flags declared into one parser, in the binary's order (a test in
// tests/cpu/bench/test_command_line.cpp checks that the two agree). The families the option
// tests read field by field declare into plain copies here; every other family declares
// through its registry entry (bench/families.cpp), as the binary does, so adding a family
// touches nothing here.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/devices.hpp"
#include "core/options.hpp"
#include "families.hpp"
#include "loader/loader_options.hpp"
#include "managed/managed_options.hpp"
#include "mlp/cpu_blas.hpp"
#include "mlp/mlp_options.hpp"
#include "pipeline/data_options.hpp"
#include "streams/streams_options.hpp"
#include "trace/trace_options.hpp"
#include "transfer/transfer_options.hpp"

namespace hdbench::testing {

// The families' names in run order, from the one list of families (bench/families.cpp).
inline std::vector<std::string> registry_family_names() {
  const DataOptions data;
  const DeviceSelection devices;
  std::vector<std::string> names;
  for (const auto& family : make_families(data, devices)) {
    for (const std::string& name : family->names()) names.push_back(name);
  }
  return names;
}
inline const std::vector<std::string> kFamilyNames = registry_family_names();

struct Parsed {
  Options core;
  // The families the option tests read field by field.
  TransferOptions transfer;
  ManagedOptions managed = default_managed_options();
  StreamsOptions streams;
  LoaderOptions loader;
  MlpOptions mlp;
  // Every other family, with options of its own inside.
  std::vector<std::unique_ptr<Family>> other_families;
  DataOptions data;
  trace::TraceOptions trace;
  CpuBlasOptions cpu_blas;
  DeviceSelection devices;
  bool help = false;
  std::vector<std::string> given;
  std::vector<std::string> passthrough;
  std::vector<std::string> flag_names;
  nlohmann::json json;
  std::string help_text;
};

inline Parsed parse_flags(const std::vector<std::string>& args, const OptionLimits& limits, std::uint64_t seed) {
  Parsed p;
  FlagParser flags;
  declare_core_flags(flags, p.core, kFamilyNames, seed);
  // By a family's first name (the transfer family also answers for pinning, staged, host_memcpy).
  const std::map<std::string, std::function<void()>> read_field_by_field = {
      {"transfer", [&] { declare_transfer_flags(flags, p.transfer, limits); }},
      {"managed", [&] { declare_managed_flags(flags, p.managed, limits); }},
      {"streams", [&] { declare_streams_flags(flags, p.streams, limits); }},
      {"loader", [&] { declare_loader_flags(flags, p.loader); }},
      {"mlp", [&] { declare_mlp_flags(flags, p.mlp, limits); }},
  };
  for (auto& family : make_families(p.data, p.devices)) {  // in the binary's order
    if (const auto own = read_field_by_field.find(family->names().front()); own != read_field_by_field.end()) {
      own->second();
    } else {
      family->declare_flags(flags, limits);
      p.other_families.push_back(std::move(family));
    }
  }
  declare_data_flags(flags, p.data);
  declare_cpu_blas_flags(flags, p.cpu_blas);
  trace::declare_trace_flags(flags, p.trace);
  declare_device_flags(flags, p.devices);
  p.passthrough = flags.parse(args);
  p.help = flags.help_requested();
  p.given = flags.given();
  p.flag_names = flags.names();
  p.json = flags.report();
  p.help_text = flags.help();
  return p;
}

}  // namespace hdbench::testing
