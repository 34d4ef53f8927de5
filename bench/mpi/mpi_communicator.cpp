#include "mpi_communicator.hpp"

#include <fmt/format.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "core/timing.hpp"

namespace hdbench::dataparallel {

MpiCommunicator::MpiCommunicator(double timeout_s) : timeout_s_(timeout_s) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Errors come back as codes, so they are reported with the collective's name.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type (the ranks of this node)");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
}

void MpiCommunicator::abort(const std::string& message, int code) const {
  std::fprintf(stderr, "hdbench_mpi: %s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this keeps the compiler sure of it
}

void MpiCommunicator::check(int status, std::string_view what) const {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  abort(fmt::format("rank {} of {}: {} failed: {}", rank_, size_, what, text), 1);
}

// Polls with a short sleep: ranks oversubscribed on few cores must not spin the CPU
// the other ranks need.
void MpiCommunicator::wait(MPI_Request& request, std::string_view what) const {
  const HostTimer timer;
  int done = 0;
  for (;;) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
    if (done != 0) return;
    if (timer.elapsed_seconds() > timeout_s_) abort(timeout_message(rank_, size_, what, timeout_s_), 3);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void MpiCommunicator::allreduce_sum(std::span<float> values, std::string_view what) {
  if (values.size() > static_cast<std::size_t>(INT_MAX)) throw std::length_error("all-reduce over 2^31 floats");
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                       &request),
        what);
  wait(request, what);
}

void MpiCommunicator::allreduce_max(std::span<double> values, std::string_view what) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                       MPI_COMM_WORLD, &request),
        what);
  wait(request, what);
}

void MpiCommunicator::broadcast(std::span<std::byte> bytes, std::string_view what) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) throw std::length_error("broadcast over 2 GiB");
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Ibcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD, &request), what);
  wait(request, what);
}

std::vector<std::string> MpiCommunicator::gather_to_root(const std::string& text, std::string_view what) {
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(is_root() ? static_cast<std::size_t>(size_) : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request), what);
  wait(request, what);
  std::vector<int> offsets(lengths.size());
  std::string all;
  if (is_root()) {
    long total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += lengths[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  check(MPI_Igatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                     MPI_COMM_WORLD, &request),
        what);
  wait(request, what);
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r) texts.push_back(all.substr(offsets[r], lengths[r]));
  return texts;
}

std::string MpiCommunicator::describe() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<std::size_t>(length));
  if (const auto cut = text.find_first_of(",\n"); cut != std::string::npos) text.resize(cut);
  return text;
}

}  // namespace hdbench::dataparallel
