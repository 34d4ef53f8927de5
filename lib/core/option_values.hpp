// Parsing and validating flag values. Every parser throws UsageError naming the
// flag, the bad value and what is accepted (main exits with 2); families build their
// flags from these (flags.hpp).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hdbench {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::vector<std::string_view> split(std::string_view text, char separator);

// Throws "--hdbench_FLAG: 'TEXT' is not valid; accepted: ACCEPTED".
[[noreturn]] void bad_value(std::string_view flag, std::string_view text, std::string_view accepted);

// A whole unsigned decimal number.
std::uint64_t parse_unsigned(std::string_view flag, std::string_view text, std::string_view accepted);
// "4096", "4K", "4KiB", "64M", "1G", "1GiB" (binary multiples); must be > 0.
std::size_t parse_size(std::string_view flag, std::string_view text);
// Comma-separated sizes and geometric ranges "FROM:TO:xFACTOR" (e.g. "4K:1G:x4").
std::vector<std::size_t> parse_size_list(std::string_view flag, std::string_view text);
// Comma-separated positive integers within [min, max].
std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min, int max);
// Comma-separated on/off values (also true/false, 1/0), in the order given.
std::vector<bool> parse_switch_list(std::string_view flag, std::string_view text);
// Comma-separated decimal numbers within [min, max].
std::vector<double> parse_number_list(std::string_view flag, std::string_view text, double min, double max);
// Exactly one value of a list flag; `accepted` says what one value looks like.
int parse_one_int(std::string_view flag, std::string_view text, int min, int max);
double parse_one_number(std::string_view flag, std::string_view text, double min, double max,
                        std::string_view accepted);
bool parse_one_switch(std::string_view flag, std::string_view text);
// A non-empty string ("a file path").
std::string parse_nonempty(std::string_view flag, std::string_view text, std::string_view accepted);
// "4KiB", "256MiB", "1GiB", "1000B": exact binary units where possible.
std::string format_size(std::size_t bytes);

// Comma-separated names of an axis enum (each has to_string()), without duplicates.
template <typename Enum>
std::vector<Enum> parse_enum_list(std::string_view flag, std::string_view text,
                                  std::optional<Enum> (*from_string)(std::string_view), const std::vector<Enum>& all) {
  std::vector<std::string> names;
  for (Enum e : all) names.emplace_back(to_string(e));
  const std::string accepted = fmt::format("a comma-separated list of {}", fmt::join(names, ", "));
  std::vector<Enum> values;
  for (std::string_view item : split(text, ',')) {
    const std::optional<Enum> value = from_string(item);
    if (!value) bad_value(flag, item.empty() ? text : item, accepted);
    if (std::find(values.begin(), values.end(), *value) == values.end()) values.push_back(*value);
  }
  return values;
}

// The spellings of axis values, for reports.
template <typename Enum>
std::vector<std::string> names_of(const std::vector<Enum>& values) {
  std::vector<std::string> names;
  for (Enum value : values) names.emplace_back(to_string(value));
  return names;
}

}  // namespace hdbench
