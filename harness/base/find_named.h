// A table's row by name, and the "did you mean" of the error when there is
// none (the counter source kinds, the transports).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/closest_match.h"

namespace harness {

// The row of a table (rows with a `name`) named `name`; otherwise nullptr,
// with every row's name appended to `names`, for the error that lists them.
template <class Row>
const Row* find_named(const std::vector<Row>& rows, std::string_view name, std::vector<std::string>& names) {
  for (const Row& row : rows) {
    if (row.name == name) return &row;
    names.emplace_back(row.name);
  }
  return nullptr;
}

// `; did you mean "x"?` naming the closest of `names` to `word`, or nothing.
inline std::string did_you_mean(std::string_view word, const std::vector<std::string>& names) {
  std::optional<std::string> near = closest_match(word, names);
  return near ? "; did you mean \"" + *near + "\"?" : "";
}

}  // namespace harness
