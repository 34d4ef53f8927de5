#include "streams/streams_axes.hpp"

#include "core/enum_names.hpp"

namespace hdbench {

const char* to_string(IssueOrder order) noexcept {
  switch (order) {
    case IssueOrder::by_chunk:
      return "by_chunk";
    case IssueOrder::by_stage:
      return "by_stage";
  }
  return "unknown";
}

std::vector<IssueOrder> all_issue_orders() { return {IssueOrder::by_chunk, IssueOrder::by_stage}; }
std::optional<IssueOrder> issue_order_from_string(std::string_view name) {
  return enum_from_name(name, all_issue_orders());
}

}  // namespace hdbench
