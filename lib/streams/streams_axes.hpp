// The streams family's axes.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hdbench {

// How a chunked pipeline queues its work.
enum class IssueOrder {
  by_chunk,  // each chunk's three stages together, chunk after chunk
  by_stage,  // every chunk's H2D, then every kernel, then every D2H
};

const char* to_string(IssueOrder order) noexcept;
std::optional<IssueOrder> issue_order_from_string(std::string_view name);
std::vector<IssueOrder> all_issue_orders();

}  // namespace hdbench
