// What pinning costs: cudaMallocHost + cudaFreeHost, and cudaHostRegister +
// cudaHostUnregister on memory the program already has. From these and the transfer
// rates of the same run, the derivation works out after how many transfers pinning
// has paid for itself.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>

#include "cuda.hpp"
#include "families.hpp"
#include "host_memory.hpp"
#include "measure.hpp"
#include "nvtx.hpp"
#include "timing.hpp"

namespace hdbench {
namespace {

enum class PinMethod { malloc_host, register_existing };

const char* method_name(PinMethod method) {
  return method == PinMethod::malloc_host ? "malloc_host" : "register";
}

// Pin and unpin are timed on the host clock: they are host-side driver work with no
// device stream to put events on.
void run_pinning(benchmark::State& state, const Suite& suite, PinMethod method, std::size_t bytes,
                 const std::string& name) {
  HDBENCH_CUDA_CHECK(cudaSetDevice(suite.options().device));
  if (const auto shortfall = memory_shortfall(bytes, 0)) {
    skip_benchmark(state, *shortfall);
    return;
  }
  PageableBuffer existing;
  if (method == PinMethod::register_existing) {
    existing = PageableBuffer(bytes);
    std::memset(existing.data(), 1, bytes);  // registering untouched pages would also fault them in
  }
  std::vector<double> pin_seconds, unpin_seconds;
  for (auto _ : state) {
    nvtx::ScopedRange range(nvtx::Family::pinning, name + "/timed", bytes);
    HostTimer timer;
    void* pinned = nullptr;
    if (method == PinMethod::malloc_host) {
      HDBENCH_CUDA_CHECK(cudaMallocHost(&pinned, bytes));
    } else {
      HDBENCH_CUDA_CHECK(cudaHostRegister(existing.data(), bytes, cudaHostRegisterDefault));
    }
    const double pinned_at = timer.elapsed_seconds();
    if (method == PinMethod::malloc_host) {
      HDBENCH_CUDA_CHECK(cudaFreeHost(pinned));
    } else {
      HDBENCH_CUDA_CHECK(cudaHostUnregister(existing.data()));
    }
    const double total = timer.elapsed_seconds();
    state.SetIterationTime(total);
    pin_seconds.push_back(pinned_at);
    unpin_seconds.push_back(total - pinned_at);
  }
  const SampleStats pin = summarize(pin_seconds);
  const SampleStats unpin = summarize(unpin_seconds);
  state.counters["pin_us"] = pin.median * 1e6;
  state.counters["unpin_us"] = unpin.median * 1e6;
  state.counters["pin_unpin_us"] = (pin.median + unpin.median) * 1e6;
  if (pin.median > 0.0) state.counters["pin_rate_GB/s"] = static_cast<double>(bytes) / pin.median / 1e9;
  state.counters["cv_percent"] = summarize([&] {
    std::vector<double> totals;
    for (std::size_t i = 0; i < pin_seconds.size(); ++i) totals.push_back(pin_seconds[i] + unpin_seconds[i]);
    return totals;
  }()).cv * 100.0;
}

std::optional<double> counter(const nlohmann::json& entry, const char* name) {
  if (entry.value("status", "") != "ok" || !entry.contains("counters")) return std::nullopt;
  const auto& counters = entry["counters"];
  if (!counters.contains(name) || !counters[name].is_number()) return std::nullopt;
  return counters[name].get<double>();
}

// For each size and direction: one transfer of pageable memory costs t_pageable,
// of pinned (or registered) memory t_pinned; pinning once costs t_pin (pin + unpin).
// Pinning pays after n > t_pin / (t_pageable - t_pinned) transfers.
void derive_break_even(const nlohmann::json& benchmarks, nlohmann::json& derived) {
  std::map<std::tuple<std::string, std::string, std::size_t>, double> copy_us;  // (direction, memory, bytes)
  std::map<std::pair<std::string, std::size_t>, double> pin_us;                 // (method, bytes)
  for (const auto& entry : benchmarks) {
    if (entry.value("run_type", "") != "iteration") continue;
    const auto& p = entry["params"];
    if (p.value("family", "") == "transfer" && p.value("engine", "") == "copy" &&
        p.value("variant", "") == "per_copy" && p.value("direction", "") != "bidir") {
      if (const auto us = counter(entry, "latency_us")) {
        copy_us[{p["direction"], p["memory"], p["bytes"].get<std::size_t>()}] = *us;
      }
    } else if (p.value("family", "") == "pinning") {
      if (const auto us = counter(entry, "pin_unpin_us")) pin_us[{p["method"], p["bytes"].get<std::size_t>()}] = *us;
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, cost] : pin_us) {
    const auto& [method, bytes] = key;
    const std::string pinned_kind = method == "register" ? "registered" : "pinned";
    for (const char* direction : {"h2d", "d2h"}) {
      const auto pageable = copy_us.find({direction, "pageable", bytes});
      const auto pinned = copy_us.find({direction, pinned_kind, bytes});
      if (pageable == copy_us.end() || pinned == copy_us.end()) continue;
      const double saving = pageable->second - pinned->second;
      nlohmann::json row = {{"bytes", bytes},
                            {"direction", direction},
                            {"method", method},
                            {"pin_unpin_us", cost},
                            {"pageable_copy_us", pageable->second},
                            {"pinned_copy_us", pinned->second}};
      row["transfers_to_break_even"] =
          saving > 0.0 ? nlohmann::json(std::ceil(cost / saving)) : nlohmann::json(nullptr);
      rows.push_back(row);
    }
  }
  if (!rows.empty()) derived["pinning_break_even"] = rows;
}

}  // namespace

void register_pinning(Suite& suite) {
  const Options& o = suite.options();
  for (PinMethod method : {PinMethod::malloc_host, PinMethod::register_existing}) {
    for (std::size_t bytes : o.sizes) {
      const std::string name = fmt::format("pinning/{}/{}", method_name(method), format_size(bytes));
      nlohmann::json params = {{"family", "pinning"}, {"method", method_name(method)}, {"bytes", bytes},
                               {"device", o.device}};
      suite.add_gpu(name, std::move(params), [&suite, method, bytes, name](benchmark::State& state) {
        run_pinning(state, suite, method, bytes, name);
      });
    }
  }
  suite.add_derivation(derive_break_even);
}

}  // namespace hdbench
