#include "core/option_values.hpp"

#include <charconv>
#include <limits>
#include <map>

namespace hdbench {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

void bad_value(std::string_view flag, std::string_view text, std::string_view accepted) {
  throw UsageError(fmt::format("--hdbench_{}: '{}' is not valid; accepted: {}", flag, text, accepted));
}

std::uint64_t parse_unsigned(std::string_view flag, std::string_view text, std::string_view accepted) {
  std::uint64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) bad_value(flag, text, accepted);
  return value;
}

std::size_t parse_size(std::string_view flag, std::string_view text) {
  constexpr std::string_view accepted = "a positive byte count like 4096, 4K, 64MiB or 1G";
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) bad_value(flag, text, accepted);
  const std::uint64_t number = parse_unsigned(flag, text.substr(0, digits), accepted);
  const std::string_view unit = text.substr(digits);
  static const std::map<std::string_view, unsigned> shifts = {
      {"", 0},    {"B", 0},  {"K", 10},   {"KiB", 10}, {"KB", 10}, {"M", 20},  {"MiB", 20},
      {"MB", 20}, {"G", 30}, {"GiB", 30}, {"GB", 30},  {"T", 40},  {"TiB", 40}};
  const auto it = shifts.find(unit);
  if (it == shifts.end() || number == 0) bad_value(flag, text, accepted);
  if (number > (std::numeric_limits<std::size_t>::max() >> it->second)) bad_value(flag, text, accepted);
  return static_cast<std::size_t>(number) << it->second;
}

std::vector<std::size_t> parse_size_list(std::string_view flag, std::string_view text) {
  std::vector<std::size_t> sizes;
  for (std::string_view item : split(text, ',')) {
    const std::vector<std::string_view> range = split(item, ':');
    if (range.size() == 1) {
      sizes.push_back(parse_size(flag, item));
    } else if (range.size() == 3 && range[2].size() >= 2 && range[2][0] == 'x') {
      const std::size_t from = parse_size(flag, range[0]);
      const std::size_t to = parse_size(flag, range[1]);
      const std::uint64_t factor = parse_unsigned(flag, range[2].substr(1), "a range FROM:TO:xFACTOR with FACTOR >= 2");
      if (factor < 2 || from > to) bad_value(flag, item, "a range FROM:TO:xFACTOR with FROM <= TO and FACTOR >= 2");
      for (std::size_t size = from; size <= to; size *= factor) {
        sizes.push_back(size);
        if (size > to / factor) break;  // the next step would pass TO (or overflow)
      }
    } else {
      bad_value(flag, item, "sizes like 64M and ranges like 4K:1G:x4, separated by commas");
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<int> parse_int_list(std::string_view flag, std::string_view text, int min, int max) {
  const std::string accepted = fmt::format("comma-separated integers from {} to {}", min, max);
  std::vector<int> values;
  for (std::string_view item : split(text, ',')) {
    std::int64_t value = 0;
    const auto* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
      bad_value(flag, item.empty() ? text : item, accepted);
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) {
      values.push_back(static_cast<int>(value));
    }
  }
  return values;
}

std::vector<bool> parse_switch_list(std::string_view flag, std::string_view text) {
  std::vector<bool> values;
  for (std::string_view item : split(text, ',')) {
    bool value = false;
    if (item == "on" || item == "true" || item == "1") {
      value = true;
    } else if (!(item == "off" || item == "false" || item == "0")) {
      bad_value(flag, item.empty() ? text : item, "a comma-separated list of on, off");
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

std::vector<double> parse_number_list(std::string_view flag, std::string_view text, double min, double max) {
  const std::string accepted = fmt::format("comma-separated numbers from {} to {}", min, max);
  std::vector<double> values;
  for (std::string_view item : split(text, ',')) {
    double value = 0.0;
    const auto* end = item.data() + item.size();
    const auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end || !(value >= min && value <= max)) {
      bad_value(flag, item.empty() ? text : item, accepted);
    }
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

std::string format_size(std::size_t bytes) {
  constexpr std::pair<unsigned, const char*> units[] = {{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}};
  for (const auto& [shift, name] : units) {
    const std::size_t unit = std::size_t{1} << shift;
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, name);
  }
  return fmt::format("{}B", bytes);
}

namespace {

// One value of a list parser's, every bad text answered with `accepted`: the list parser's
// own message would say "comma-separated" of a flag that takes one value.
template <typename ParseList>
auto one_value(std::string_view flag, std::string_view text, std::string_view accepted, ParseList parse_list) {
  decltype(parse_list()) values;
  try {
    values = parse_list();
  } catch (const UsageError&) {
    bad_value(flag, text, accepted);
  }
  if (values.size() != 1) bad_value(flag, text, accepted);
  return values.front();
}

}  // namespace

int parse_one_int(std::string_view flag, std::string_view text, int min, int max) {
  return one_value(flag, text, fmt::format("one integer from {} to {}", min, max),
                   [&] { return parse_int_list(flag, text, min, max); });
}

double parse_one_number(std::string_view flag, std::string_view text, double min, double max,
                        std::string_view accepted) {
  return one_value(flag, text, accepted, [&] { return parse_number_list(flag, text, min, max); });
}

bool parse_one_switch(std::string_view flag, std::string_view text) {
  const auto values = parse_switch_list(flag, text);
  if (values.size() != 1) bad_value(flag, text, "on or off");
  return values.front();
}

std::string parse_nonempty(std::string_view flag, std::string_view text, std::string_view accepted) {
  if (text.empty()) bad_value(flag, text, accepted);
  return std::string(text);
}

}  // namespace hdbench
