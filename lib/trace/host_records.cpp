#include "trace/host_records.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace hdbench::trace {

namespace {

std::atomic<std::uint64_t> g_next_id{1};

}  // namespace

// One thread's records. The mutex is the thread's own, so it is uncontended except
// while flush_all() or the owner's destructor visits the buffer.
struct HostRecordBuffers::Buffer {
  std::mutex mutex;
  std::vector<Record> records;
  RecordSink* sink = nullptr;  // null once the owner is gone: nothing more is handed over
  std::size_t batch = 0;

  // Under `mutex`. The sink only queues the records (ProfileSink), so holding the
  // lock through consume() costs the thread no formatting or I/O.
  // Returns how many records were lost (none unless out of memory).
  std::size_t hand_over_locked() noexcept {
    if (sink == nullptr || records.empty()) return 0;
    const std::size_t count = records.size();
    try {
      std::vector<Record> out;
      out.reserve(batch);
      out.swap(records);
      sink->consume(out);
      return 0;
    } catch (...) {
      records.clear();  // out of memory or a failed sink: this batch is lost
      return count;
    }
  }
};

namespace {

// The calling thread's buffer, and at thread exit, its hand-over.
struct ThreadSlot {
  std::uint64_t owner_id = 0;
  std::shared_ptr<HostRecordBuffers::Buffer> buffer;
  ThreadSlot() = default;
  ThreadSlot(const ThreadSlot&) = delete;
  ThreadSlot& operator=(const ThreadSlot&) = delete;
  ~ThreadSlot() {
    if (!buffer) return;
    std::lock_guard lock(buffer->mutex);
    buffer->hand_over_locked();
  }
};

thread_local ThreadSlot t_slot;
thread_local std::uint64_t t_os_thread = 0;

}  // namespace

std::uint64_t os_thread_id() noexcept {
  if (t_os_thread == 0) t_os_thread = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  return t_os_thread;
}

HostRecordBuffers::HostRecordBuffers(RecordSink& sink, std::size_t batch)
    : sink_(sink), batch_(std::max<std::size_t>(batch, 1)), id_(g_next_id.fetch_add(1)) {}

HostRecordBuffers::~HostRecordBuffers() {
  stop();
  std::lock_guard registry_lock(registry_mutex_);
  for (const auto& buffer : registry_) {
    std::lock_guard lock(buffer->mutex);
    lost_.fetch_add(buffer->hand_over_locked());
    buffer->sink = nullptr;
  }
}

HostRecordBuffers::Buffer& HostRecordBuffers::buffer_of_this_thread() {
  if (t_slot.owner_id == id_ && t_slot.buffer) return *t_slot.buffer;
  auto buffer = std::make_shared<Buffer>();
  buffer->sink = &sink_;
  buffer->batch = batch_;
  buffer->records.reserve(batch_);
  {
    std::lock_guard registry_lock(registry_mutex_);
    // Threads that exited handed their buffer over and let go of it: forget them, so
    // a program that starts many short threads does not grow the registry.
    std::erase_if(registry_, [](const std::shared_ptr<Buffer>& b) {
      if (b.use_count() != 1) return false;
      std::lock_guard lock(b->mutex);
      return b->records.empty();
    });
    registry_.push_back(buffer);
  }
  if (t_slot.buffer) {
    // A buffer of an earlier HostRecordBuffers (detached by its destructor): let go.
    std::lock_guard lock(t_slot.buffer->mutex);
    t_slot.buffer->hand_over_locked();
  }
  t_slot.buffer = std::move(buffer);
  t_slot.owner_id = id_;
  return *t_slot.buffer;
}

void HostRecordBuffers::append(Record&& r) noexcept {
  if (stopped_.load(std::memory_order_relaxed)) return;
  try {
    Buffer& buffer = buffer_of_this_thread();
    std::lock_guard lock(buffer.mutex);
    if (buffer.sink == nullptr) return;
    buffer.records.push_back(std::move(r));
    if (buffer.records.size() >= batch_) lost_.fetch_add(buffer.hand_over_locked());
  } catch (...) {
    lost_.fetch_add(1);  // out of memory: this record is missing
  }
}

void HostRecordBuffers::api(const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns,
                            std::uint32_t correlation) noexcept {
  try {
    Record r = host_record(RecordKind::api, name, start_ns, end_ns, os_thread_id());
    r.correlation = correlation;
    append(std::move(r));
  } catch (...) {
    lost_.fetch_add(1);
  }
}

void HostRecordBuffers::range(const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns) noexcept {
  try {
    append(host_record(RecordKind::range, name, start_ns, end_ns, os_thread_id()));
  } catch (...) {
    lost_.fetch_add(1);
  }
}

void HostRecordBuffers::flush_all() noexcept {
  std::lock_guard registry_lock(registry_mutex_);
  for (const auto& buffer : registry_) {
    std::lock_guard lock(buffer->mutex);
    lost_.fetch_add(buffer->hand_over_locked());
  }
}

}  // namespace hdbench::trace
