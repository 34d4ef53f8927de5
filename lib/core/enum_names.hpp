// Axis values spelled on the command line and in reports: every axis enum has a
// to_string(); its value is looked up from the spelling through this one helper.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hdbench {

// The value of `all` whose to_string() is `name`.
template <typename Enum>
std::optional<Enum> enum_from_name(std::string_view name, const std::vector<Enum>& all) {
  for (Enum value : all) {
    if (name == to_string(value)) return value;
  }
  return std::nullopt;
}

}  // namespace hdbench
