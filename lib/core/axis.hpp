// An axis declared once, as nvbench declares one: the flag that sets it, how a value
// parses, its values under the quick and default presets, and its field of the
// report's context.hdbench.options. declare_axis registers all of them with the
// FlagParser, so adding an axis is one declaration, not a handler, a preset line and a
// report line in three places that can drift apart.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/flags.hpp"
#include "core/option_values.hpp"

namespace hdbench {

template <class T>
struct Axis {
  // Every member has a default initializer: declarations name only the fields they set
  // (designated initializers) without -Wmissing-field-initializers.
  std::string flag = {};         // --hdbench_<flag>
  std::string value_help = {};   // "LIST", "SIZES"
  std::string description = {};  // --hdbench_help's text, with the default
  std::function<std::vector<T>(std::string_view flag, std::string_view value)> parse = {};
  std::optional<std::vector<T>> quick = {};     // the quick preset's values; none: the declared default
  std::optional<std::vector<T>> standard = {};  // the default preset's values; none: the declared default
  std::string report_field = {};                // context.hdbench.options.<report_field>
  // How the values read in the report (an enum axis: their names).
  std::function<nlohmann::json(const std::vector<T>&)> report = [](const std::vector<T>& v) {
    return nlohmann::json(v);
  };
};

// Declares `axis` for `values` (which hold the declared default, what the full preset
// runs): its flag, its presets (applied unless the flag was given) and its report field.
template <class T>
void declare_axis(FlagParser& flags, std::vector<T>& values, Axis<T> axis) {
  flags.add(axis.flag, axis.value_help, axis.description,
            [&values, parse = axis.parse](std::string_view flag, std::string_view v) { values = parse(flag, v); });
  if (axis.quick || axis.standard) {
    flags.add_check([&flags, &values, name = axis.flag, quick = axis.quick, standard = axis.standard] {
      flags.apply_preset(name, values, quick.value_or(values), standard.value_or(values));
    });
  }
  flags.add_report([&values, field = std::move(axis.report_field), report = std::move(axis.report)](nlohmann::json& j) {
    j[field] = report(values);
  });
}

// The parse of a list of sizes that must each fit in the host's memory.
inline std::function<std::vector<std::size_t>(std::string_view, std::string_view)> fitting_sizes(
    const OptionLimits& limits) {
  return [limits](std::string_view flag, std::string_view v) {
    std::vector<std::size_t> sizes = parse_size_list(flag, v);
    check_sizes_fit(flag, sizes, limits);
    return sizes;
  };
}

// The parse and report of an enum axis: any of `all` by name (to_string), reported by name.
template <class E>
Axis<E> enum_axis(std::string flag, std::string description, std::optional<E> (*from_string)(std::string_view),
                  std::vector<E> all) {
  Axis<E> axis;
  axis.flag = flag;
  axis.value_help = "LIST";
  axis.description = std::move(description);
  axis.parse = [from_string, all = std::move(all)](std::string_view f, std::string_view v) {
    return parse_enum_list<E>(f, v, from_string, all);
  };
  axis.report_field = std::move(flag);
  axis.report = [](const std::vector<E>& v) { return nlohmann::json(names_of(v)); };
  return axis;
}

}  // namespace hdbench
