// Helpers of the option tests: size constants and the UsageError a call throws.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "core/option_values.hpp"

namespace hdbench::testing {

constexpr std::size_t kKiB = std::size_t{1} << 10;
constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

inline bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The message of the UsageError `fn` throws; fails the test when it throws nothing.
template <typename Fn>
std::string usage_error_of(Fn&& fn) {
  try {
    fn();
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a UsageError";
  return {};
}

}  // namespace hdbench::testing
