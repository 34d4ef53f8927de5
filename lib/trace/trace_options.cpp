#include "trace/trace_options.hpp"

#include "trace/trace_recorder.hpp"

namespace hdbench::trace {

void declare_trace_flags(FlagParser& flags, TraceOptions& o) {
  flags.group("trace");
  flags.add("trace", "FILE",
            "record CUPTI activity (copies, kernels, ranges) into a Chrome trace for Perfetto (FILE.gz: gzipped)",
            [&o](auto flag, auto v) {
              o.path = parse_nonempty(flag, v, "a file path for the Chrome trace");
              if (!cupti_built_in()) {
                throw UsageError(
                    "--hdbench_trace: this hdbench was built without CUPTI; rebuild with the CUDA "
                    "Toolkit's CUPTI (CUDA::cupti) to record traces");
              }
            });
  flags.add("trace_api", "on|off", "with --hdbench_trace, also record every CUDA runtime call (default off)",
            [&o](auto flag, auto v) { o.api = parse_one_switch(flag, v); });
  flags.add("trace_budget", "N",
            "with --hdbench_trace, records each benchmark keeps before it keeps only a sample: its first timed "
            "ranges in full, the rest counted as dropped (default " +
                std::to_string(kDefaultTraceBudget) + ")",
            [&o](auto flag, auto v) {
              constexpr std::string_view accepted = "a whole number of records, at least 1";
              const std::uint64_t n = parse_unsigned(flag, v, accepted);
              if (n == 0) bad_value(flag, v, accepted);
              o.budget = static_cast<std::size_t>(n);
            });
  flags.add_report([&o](nlohmann::json& j) {
    j["trace_path"] = o.path;
    j["trace_api"] = o.api;
    j["trace_budget"] = o.budget;
  });
}

}  // namespace hdbench::trace
