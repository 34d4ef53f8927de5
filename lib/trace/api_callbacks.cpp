#include "trace/api_callbacks.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "trace/trace_recorder.hpp"

#if defined(HDBENCH_HAVE_CUPTI)
#include <cupti.h>

#include "trace/cupti_check.hpp"
#endif

namespace hdbench::trace {

#if !defined(HDBENCH_HAVE_CUPTI)

struct ApiCallbacks::State {};
ApiCallbacks::ApiCallbacks(HostRecordBuffers&, bool) { throw TraceUnavailable("this build has no CUPTI"); }
ApiCallbacks::~ApiCallbacks() = default;
std::size_t ApiCallbacks::runtime_calls() const noexcept { return 0; }
std::size_t ApiCallbacks::driver_calls() const noexcept { return 0; }
void ApiCallbacks::stop() noexcept {}

#else

struct ApiCallbacks::State {
  HostRecordBuffers* buffers = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<std::string> runtime_names, driver_names;  // by callback id; empty: not subscribed
  std::size_t runtime_count = 0, driver_count = 0;
};

namespace {

// Kept runtime calls open on this thread: a driver launch inside one is the runtime's.
thread_local int t_runtime_depth = 0;

void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* state = static_cast<const ApiCallbacks::State*>(userdata);
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (state == nullptr || call == nullptr || call->correlationData == nullptr) return;
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  std::uint64_t now = 0;
  const bool timed = cuptiGetTimestamp(&now) == CUPTI_SUCCESS;
  if (call->callbackSite == CUPTI_API_ENTER) {
    // 0 in the call's slot: not recorded (no time, or a driver launch inside a kept runtime call).
    *call->correlationData = timed && (runtime || t_runtime_depth == 0) ? now : 0;
    if (runtime) ++t_runtime_depth;
    return;
  }
  if (runtime && t_runtime_depth > 0) --t_runtime_depth;
  const std::uint64_t start = *call->correlationData;
  if (start == 0 || !timed) return;
  const std::vector<std::string>& names = runtime ? state->runtime_names : state->driver_names;
  if (cbid >= names.size() || names[cbid].empty()) return;
  state->buffers->api(names[cbid], start, now, call->correlationId);
}

// Subscribes to every callback of `domain` whose name as called `keep` accepts; the
// names go into `names` by callback id. Returns how many.
template <typename Keep>
std::size_t enable_kept(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain, std::uint32_t size, Keep keep,
                        std::vector<std::string>& names) {
  names.assign(size, std::string());
  std::size_t count = 0;
  for (std::uint32_t cbid = 0; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;  // a gap in the ids
    std::string called = api_name_as_called(name);
    if (!keep(called)) continue;
    check_cupti(cuptiEnableCallback(1, subscriber, domain, cbid), "cuptiEnableCallback");
    names[cbid] = std::move(called);
    ++count;
  }
  return count;
}

}  // namespace

ApiCallbacks::ApiCallbacks(HostRecordBuffers& buffers, bool driver_launches) : state_(std::make_unique<State>()) {
  state_->buffers = &buffers;
  check_cupti(cuptiSubscribe(&state_->subscriber, on_callback, state_.get()), "cuptiSubscribe");
  try {
    state_->runtime_count = enable_kept(
        state_->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE,
        [](const std::string& n) { return kept_api_call(n); }, state_->runtime_names);
    if (state_->runtime_count == 0) {
      throw TraceUnavailable("CUPTI names none of the kept runtime calls (cudaMemcpy, cudaLaunchKernel, ...)");
    }
    if (driver_launches) {
      state_->driver_count = enable_kept(
          state_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
          [](const std::string& n) { return kept_driver_call(n); }, state_->driver_names);
    }
  } catch (...) {
    cuptiUnsubscribe(state_->subscriber);  // failing too changes nothing: we are giving up
    throw;
  }
}

ApiCallbacks::~ApiCallbacks() { stop(); }

std::size_t ApiCallbacks::runtime_calls() const noexcept { return state_->runtime_count; }
std::size_t ApiCallbacks::driver_calls() const noexcept { return state_->driver_count; }

void ApiCallbacks::stop() noexcept {
  if (state_->subscriber == nullptr) return;
  cuptiUnsubscribe(
      state_->subscriber);  // at exit: a failure leaves the callbacks on, which record into stopped buffers
  state_->subscriber = nullptr;
}

#endif

}  // namespace hdbench::trace
