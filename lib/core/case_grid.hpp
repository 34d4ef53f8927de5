// A family's cases as the cross product of its axes, each case's name and params built
// from the axes (CaseId), as nvbench builds a benchmark's states from its axes: the
// param key of an axis is typed once, where the axis is, never again at a case site.
//
//   for_each_case("managed", {"direction", "variant", "bytes"},
//                 [&](CaseId& id, Way way, ManagedVariant variant, std::size_t bytes) { ... },
//                 named_case_axis("direction", std::vector<Way>{Way::h2d, Way::d2h}),
//                 named_case_axis("variant", options.variants),
//                 size_case_axis("bytes", options.sizes));
//
// The first axis is the outermost loop (the run order); `name_order` is the order the
// name shows the axes' parts in (axes it leaves out follow in axis order). The body may
// add params of its own (id.param: what follows from the axes, e.g. a slice's row count)
// and may skip a combination by returning without registering it. A family whose cases
// are the union of grids of different shapes (a CPU step has threads, a GPU step a
// dtype) calls for_each_case once per grid; a value every case of a grid shares is an
// axis of one value, so its key is still typed where the axis is.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/case_id.hpp"
#include "core/option_values.hpp"

namespace hdbench {

// How an axis's value appears in the case's name.
enum class Shown {
  value,     // as itself: ".../pinned/..."
  labelled,  // "key:value" (or the axis's label): ".../batch:256/..."
  hidden,    // in the params only
  absent,    // in neither (CaseAxis::shown_for: a value cases had before the axis existed)
};

template <class T>
struct CaseAxis {
  std::string key;  // params.<key>
  std::vector<T> values;
  std::function<nlohmann::json(const T&)> param;  // the value in the params
  std::function<std::string(const T&)> text;      // the value in the name
  Shown shown = Shown::value;
  std::string label = {};  // a labelled part's label where it is not the key ("depth:2" for prefetch_depth)
  // Where set, how each value is shown instead of `shown`: the value every case had
  // before the axis existed stays out of the name (hidden; numa near, numa:far) or out of
  // the params too (absent; no busy threads, busy:2), so the cases of earlier reports
  // keep their names and still pair by them.
  std::function<Shown(const T&)> shown_for = {};
};

// A named value (an enum, a matrix shape): param and name its to_string.
template <class E>
CaseAxis<E> named_case_axis(std::string key, std::vector<E> values) {
  return {std::move(key), std::move(values), [](const E& v) { return nlohmann::json(to_string(v)); },
          [](const E& v) { return std::string(to_string(v)); }};
}

// Sizes in bytes: the params hold the count, the name shows "64MiB".
inline CaseAxis<std::size_t> size_case_axis(std::string key, std::vector<std::size_t> values) {
  return {std::move(key), std::move(values), [](const std::size_t& v) { return nlohmann::json(v); },
          [](const std::size_t& v) { return format_size(v); }};
}

// A count shown as "key:value" (batch:256, tensors:8), or "label:value" where the name
// reads shorter than the key (depth:2 for prefetch_depth).
template <class T>
CaseAxis<T> labelled_case_axis(std::string key, std::vector<T> values, std::string label = {}) {
  return {std::move(key),
          std::move(values),
          [](const T& v) { return nlohmann::json(v); },
          [](const T& v) { return fmt::format("{}", v); },
          Shown::labelled,
          std::move(label)};
}

// Words as themselves, in the name and the params: a part all of a grid's cases share
// (variant "step") or values that are no enum (a communicator's name).
inline CaseAxis<std::string> word_case_axis(std::string key, std::vector<std::string> values) {
  return {std::move(key), std::move(values), [](const std::string& v) { return nlohmann::json(v); },
          [](const std::string& v) { return v; }};
}

// `axis` shown another way: a named value labelled ("data:pinned"), or a grid's fixed
// value hidden (sync and async have one stream: the params say so, the name need not).
template <class T>
CaseAxis<T> shown_as(CaseAxis<T> axis, Shown shown, std::string label = {}) {
  axis.shown = shown;
  axis.label = std::move(label);
  return axis;
}

namespace case_grid_detail {

struct Part {
  std::string key;
  nlohmann::json param;
  std::string text;
  Shown shown;
  std::string label;
};

inline CaseId build_id(std::string_view family, const std::vector<std::string>& name_order,
                       const std::vector<Part>& parts) {
  CaseId id(family);
  std::vector<bool> used(parts.size(), false);
  const auto add = [&](std::size_t i) {
    used[i] = true;
    const Part& p = parts[i];
    switch (p.shown) {
      case Shown::value:
        id.shown(p.key, p.param, p.text);
        break;
      case Shown::labelled:
        id.shown(p.key, p.param, fmt::format("{}:{}", p.label.empty() ? p.key : p.label, p.text));
        break;
      case Shown::hidden:
        id.param(p.key, p.param);
        break;
      case Shown::absent:
        break;
    }
  };
  for (const std::string& key : name_order) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!used[i] && parts[i].key == key) add(i);
    }
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!used[i]) add(i);
  }
  return id;
}

template <class F, class... Done>
void walk(std::string_view family, const std::vector<std::string>& name_order, std::vector<Part>& parts, F& body,
          const std::tuple<Done...>& done) {
  CaseId id = build_id(family, name_order, parts);
  std::apply([&](const Done&... values) { body(id, values...); }, done);
}

template <class F, class... Done, class T, class... Rest>
void walk(std::string_view family, const std::vector<std::string>& name_order, std::vector<Part>& parts, F& body,
          const std::tuple<Done...>& done, const CaseAxis<T>& axis, const CaseAxis<Rest>&... rest) {
  for (const T& value : axis.values) {
    const Shown shown = axis.shown_for ? axis.shown_for(value) : axis.shown;
    parts.push_back({axis.key, axis.param(value), axis.text(value), shown, axis.label});
    walk(family, name_order, parts, body, std::tuple_cat(done, std::tuple<T>(value)), rest...);
    parts.pop_back();
  }
}

}  // namespace case_grid_detail

// Calls body(CaseId&, values...) for every combination of the axes' values.
template <class F, class... T>
void for_each_case(std::string_view family, const std::vector<std::string>& name_order, F&& body,
                   const CaseAxis<T>&... axes) {
  std::vector<case_grid_detail::Part> parts;
  case_grid_detail::walk(family, name_order, parts, body, std::tuple<>(), axes...);
}

}  // namespace hdbench
