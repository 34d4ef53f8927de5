// NVTX injection library that writes every range, domain, category, thread and
// stream name a process emits to a text file, so tests can check hdbench's NVTX
// conventions without Nsight and without a GPU.
//
// Use: NVTX_INJECTION64_PATH=/path/to/libnvtx_capture.so
//      HDBENCH_NVTX_CAPTURE=/path/to/capture.log   (unset: attach, record nothing)
//
// The file is opened in append mode and every event is one line written with a
// single write(2) at once, so lines of concurrent processes never interleave and a
// crash leaves everything recorded so far. Fields are tab-separated; tabs, CR and
// LF inside a field are replaced by spaces:
//
//   domain    <domain>
//   category  <domain> <id> <name>
//   push      <domain> <os tid> <category> <color> <payload> <message>
//   pop       <domain> <os tid>
//   thread    <os tid> <name>
//   stream    <name>
//
// <domain> is "<default>" for the non-domain API (nvtxRangePushA, ...) and for a
// null domain handle. <color> is 8 uppercase hex digits (ARGB), or "-" when the
// range has no ARGB colour. <payload> is an unsigned decimal when the payload type
// is NVTX_PAYLOAD_TYPE_UNSIGNED_INT64, "-" otherwise. <category> is 0 when none.
// tests/python/nvtx_log.py parses this format.

#define NVTX_NO_IMPL           // a tool: types and declarations only
#include <cuda_runtime_api.h>  // cudaStream_t only; nothing of cudart is called
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cwchar>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr const char* kDefaultDomain = "<default>";

// Everything is heap-allocated and never freed: NVTX calls may still arrive from
// other threads or static destructors while the process exits.
struct State {
  std::mutex mutex;
  int fd = -1;
  // Handles we hand out are the addresses of these strings.
  std::map<const void*, std::unique_ptr<std::string>> domains;
  std::map<const void*, std::unique_ptr<std::string>> strings;
};

State& state() {
  static State* const instance = [] {
    auto* created = new State;
    if (const char* path = std::getenv("HDBENCH_NVTX_CAPTURE"); path != nullptr && *path != '\0') {
      created->fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (created->fd < 0) {
        std::fprintf(stderr, "nvtx_capture: cannot open %s for appending; recording nothing\n", path);
      }
    }
    return created;
  }();
  return *instance;
}

std::uint32_t os_tid() { return static_cast<std::uint32_t>(::syscall(SYS_gettid)); }

std::string field(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::string field(const char* text) { return field(std::string(text != nullptr ? text : "")); }

// Wide strings are only ever expected to hold ASCII here; anything else becomes '?'.
std::string field(const wchar_t* text) {
  std::string narrow;
  if (text != nullptr) {
    for (; *text != L'\0'; ++text) {
      const auto code = static_cast<std::uint32_t>(*text);
      narrow.push_back(code < 0x80 ? static_cast<char>(code) : '?');
    }
  }
  return field(std::move(narrow));
}

// Appends one line; the caller holds the mutex.
void emit_locked(State& s, std::string line) {
  if (s.fd < 0) return;
  line.push_back('\n');
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t written = ::write(s.fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

std::string domain_name_locked(State& s, nvtxDomainHandle_t domain) {
  if (domain == nullptr) return kDefaultDomain;
  const auto found = s.domains.find(domain);
  return found != s.domains.end() ? *found->second : std::string("<unknown>");
}

std::string message_locked(State& s, const nvtxEventAttributes_t* attributes) {
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return field(attributes->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return field(attributes->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      const auto found = s.strings.find(attributes->message.registered);
      return found != s.strings.end() ? *found->second : std::string();
    }
    default:
      return {};
  }
}

// Range nesting depth of the calling thread per domain, for the return values.
thread_local std::map<std::string, int> t_depth;

int push_locked(State& s, const std::string& domain, std::uint32_t category, const char* color,
                const std::string& payload, const std::string& message) {
  emit_locked(s, "push\t" + field(domain) + '\t' + std::to_string(os_tid()) + '\t' + std::to_string(category) + '\t' +
                     color + '\t' + payload + '\t' + message);
  return t_depth[domain]++;  // zero-based level of the range just pushed
}

int pop_locked(State& s, const std::string& domain) {
  emit_locked(s, "pop\t" + field(domain) + '\t' + std::to_string(os_tid()));
  int& depth = t_depth[domain];
  if (depth == 0) return -1;  // unbalanced pop; still recorded above
  return --depth;
}

int push_attributes_locked(State& s, const std::string& domain, const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return push_locked(s, domain, 0, "-", "-", "");
  char color[16] = "-";
  if (attributes->colorType == NVTX_COLOR_ARGB) {
    std::snprintf(color, sizeof color, "%08X", static_cast<unsigned>(attributes->color));
  }
  const std::string payload = attributes->payloadType == NVTX_PAYLOAD_TYPE_UNSIGNED_INT64
                                  ? std::to_string(attributes->payload.ullValue)
                                  : std::string("-");
  return push_locked(s, domain, attributes->category, color, payload, message_locked(s, attributes));
}

// ---- core (non-domain) API ----

int core_range_push_ex(const nvtxEventAttributes_t* attributes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return push_attributes_locked(s, kDefaultDomain, attributes);
}

int core_range_push_a(const char* message) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return push_locked(s, kDefaultDomain, 0, "-", "-", field(message));
}

int core_range_pop() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return pop_locked(s, kDefaultDomain);
}

void core_name_category_a(std::uint32_t category, const char* name) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  emit_locked(s, std::string("category\t") + kDefaultDomain + '\t' + std::to_string(category) + '\t' + field(name));
}

void core_name_os_thread_a(std::uint32_t thread_id, const char* name) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  emit_locked(s, "thread\t" + std::to_string(thread_id) + '\t' + field(name));
}

// ---- domain API ----

nvtxDomainHandle_t domain_create_a(const char* name) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto node = std::make_unique<std::string>(field(name));
  auto* handle = reinterpret_cast<nvtxDomainHandle_t>(node.get());
  emit_locked(s, "domain\t" + *node);
  s.domains.emplace(handle, std::move(node));
  return handle;
}

void domain_destroy(nvtxDomainHandle_t) {
  // Keep the name: late events on a destroyed handle still resolve, and the
  // address is never reused for another domain.
}

void domain_name_category_a(nvtxDomainHandle_t domain, std::uint32_t category, const char* name) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  emit_locked(s, "category\t" + domain_name_locked(s, domain) + '\t' + std::to_string(category) + '\t' + field(name));
}

nvtxStringHandle_t domain_register_string_a(nvtxDomainHandle_t, const char* text) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  auto node = std::make_unique<std::string>(field(text));
  auto* handle = reinterpret_cast<nvtxStringHandle_t>(node.get());
  s.strings.emplace(handle, std::move(node));
  return handle;
}

int domain_range_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return push_attributes_locked(s, domain_name_locked(s, domain), attributes);
}

int domain_range_pop(nvtxDomainHandle_t domain) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return pop_locked(s, domain_name_locked(s, domain));
}

// ---- CUDA runtime naming ----

void name_cuda_stream_a(cudaStream_t, const char* name) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  emit_locked(s, "stream\t" + field(name));
}

// ---- attaching ----

struct Entry {
  unsigned id;
  NvtxFunctionPointer function;
};

// The parameter's type is NVTX's own for the slot, so a handler whose signature
// does not match exactly fails to compile.
template <typename Expected>
Entry entry(unsigned id, Expected function) {
  return {id, reinterpret_cast<NvtxFunctionPointer>(function)};
}

struct ModuleEntries {
  NvtxCallbackModule module;
  std::vector<Entry> entries;
  NvtxFunctionTable table = nullptr;
};

// Looks the module's table up; false when NVTX does not provide it or a slot we
// need lies outside the table it returned.
bool resolve(const NvtxExportTableCallbacks& callbacks, ModuleEntries& module) {
  unsigned int size = 0;  // ids 1..size-1 are valid; slot 0 is the invalid id
  if (callbacks.GetModuleFunctionTable(module.module, &module.table, &size) == 0 || module.table == nullptr) {
    return false;
  }
  for (const Entry& e : module.entries) {
    if (e.id == 0 || e.id >= size || module.table[e.id] == nullptr) return false;
  }
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (get_export_table == nullptr) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr ||
      callbacks->struct_size <
          offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable) + sizeof(callbacks->GetModuleFunctionTable) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }

  ModuleEntries modules[] = {
      {NVTX_CB_MODULE_CORE,
       {entry<nvtxRangePushEx_impl_fntype>(NVTX_CBID_CORE_RangePushEx, &core_range_push_ex),
        entry<nvtxRangePushA_impl_fntype>(NVTX_CBID_CORE_RangePushA, &core_range_push_a),
        entry<nvtxRangePop_impl_fntype>(NVTX_CBID_CORE_RangePop, &core_range_pop),
        entry<nvtxNameCategoryA_impl_fntype>(NVTX_CBID_CORE_NameCategoryA, &core_name_category_a),
        entry<nvtxNameOsThreadA_impl_fntype>(NVTX_CBID_CORE_NameOsThreadA, &core_name_os_thread_a)}},
      {NVTX_CB_MODULE_CORE2,
       {entry<nvtxDomainCreateA_impl_fntype>(NVTX_CBID_CORE2_DomainCreateA, &domain_create_a),
        entry<nvtxDomainDestroy_impl_fntype>(NVTX_CBID_CORE2_DomainDestroy, &domain_destroy),
        entry<nvtxDomainNameCategoryA_impl_fntype>(NVTX_CBID_CORE2_DomainNameCategoryA, &domain_name_category_a),
        entry<nvtxDomainRegisterStringA_impl_fntype>(NVTX_CBID_CORE2_DomainRegisterStringA, &domain_register_string_a),
        entry<nvtxDomainRangePushEx_impl_fntype>(NVTX_CBID_CORE2_DomainRangePushEx, &domain_range_push_ex),
        entry<nvtxDomainRangePop_impl_fntype>(NVTX_CBID_CORE2_DomainRangePop, &domain_range_pop)}},
      {NVTX_CB_MODULE_CUDART,
       {entry<void (*)(cudaStream_t, const char*)>(NVTX_CBID_CUDART_NameCudaStreamA, &name_cuda_stream_a)}},
  };
  // All or nothing: check every slot before writing any.
  for (ModuleEntries& module : modules) {
    if (!resolve(*callbacks, module)) return 0;
  }
  state();  // open the file before the first event
  for (const ModuleEntries& module : modules) {
    for (const Entry& e : module.entries) *module.table[e.id] = e.function;
  }
  return 1;
}
