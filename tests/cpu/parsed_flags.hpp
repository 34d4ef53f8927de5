// Every owner's flags declared into one parser, as the binary declares them (a test in
// bench/test_command_line.cpp checks that the two agree), with the parsed options in
// reach of the tests as plain copies.
#pragma once

#include <string>
#include <vector>

#include "batch_copy/batch_copy_options.hpp"
#include "core/devices.hpp"
#include "core/options.hpp"
#include "dataparallel/dataparallel_options.hpp"
#include "device_local/device_local_options.hpp"
#include "families.hpp"
#include "latency/latency_options.hpp"
#include "loader/loader_options.hpp"
#include "managed/managed_options.hpp"
#include "mlp/cpu_blas.hpp"
#include "mlp/mlp_options.hpp"
#include "p2p/p2p_options.hpp"
#include "pipeline/data_options.hpp"
#include "streams/streams_options.hpp"
#include "strided/strided_options.hpp"
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
  TransferOptions transfer;
  DeviceLocalOptions device_local = default_device_local_options();
  LatencyOptions latency;
  ManagedOptions managed = default_managed_options();
  BatchCopyOptions batch_copy;
  StridedOptions strided;
  StreamsOptions streams;
  DataOptions data;
  LoaderOptions loader;
  MlpOptions mlp;
  DataParallelOptions dataparallel;
  P2pOptions p2p;
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
  declare_transfer_flags(flags, p.transfer, limits);
  declare_device_local_flags(flags, p.device_local);
  declare_latency_flags(flags, p.latency);
  declare_managed_flags(flags, p.managed, limits);
  declare_batch_copy_flags(flags, p.batch_copy);
  declare_strided_flags(flags, p.strided, limits);
  declare_streams_flags(flags, p.streams, limits);
  declare_loader_flags(flags, p.loader);
  declare_mlp_flags(flags, p.mlp, limits);
  declare_dataparallel_flags(flags, p.dataparallel, limits, [](std::string_view, std::string_view) {});
  declare_p2p_flags(flags, p.p2p, limits);
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
