// A benchmark case's name and params built from one list of its parts, as nvbench
// derives both from a state's axis values: each part that the name shows is put into
// the params in the same call, so the two cannot drift apart (a name saying batch:256
// over params saying 512).
//
//   CaseId("loader").shown("consumer", "gpu").labelled("batch", 256).param("dataset", "idx")
//   name()   "loader/gpu/batch:256"
//   params() {"family": "loader", "consumer": "gpu", "batch": 256, "dataset": "idx"}
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace hdbench {

class CaseId {
 public:
  // The family is the name's first part and params.family.
  explicit CaseId(std::string_view family) : name_(family), params_{{"family", family}} {}

  // A part the name shows as `shown` (e.g. a size as "64MiB") and params hold as `value`.
  CaseId& shown(std::string_view key, nlohmann::json value, std::string_view shown) {
    params_[std::string(key)] = std::move(value);
    return segment(shown);
  }
  // A named value shown as itself ("pinned").
  CaseId& shown(std::string_view key, const std::string& value) { return shown(key, value, value); }
  CaseId& shown(std::string_view key, const char* value) { return shown(key, std::string(value)); }

  // A part the name shows as "label:value"; the label is the key unless given.
  template <class T>
  CaseId& labelled(std::string_view key, const T& value) {
    return labelled(key, key, value);
  }
  template <class T>
  CaseId& labelled(std::string_view label, std::string_view key, const T& value) {
    params_[std::string(key)] = value;
    return segment(fmt::format("{}:{}", label, value));
  }

  // Only in the params: what the name need not show to be unique (the dataset's path).
  CaseId& param(std::string_view key, nlohmann::json value) {
    params_[std::string(key)] = std::move(value);
    return *this;
  }
  // Only in the name: a fixed word (a variant's name already in params under another key).
  CaseId& word(std::string_view word) { return segment(word); }

  const std::string& name() const noexcept { return name_; }
  const nlohmann::json& params() const noexcept { return params_; }

 private:
  CaseId& segment(std::string_view part) {
    name_ += '/';
    name_ += part;
    return *this;
  }

  std::string name_;
  nlohmann::json params_;
};

}  // namespace hdbench
