// JSON read from a file with its limits: size (checked by the caller before
// reading) and nesting depth, tracked while parsing so that a deeply nested
// document is refused before it exhausts the stack.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/base/result.h"

namespace harness {

// Parses `text`; `where` names the file in errors: "<where>: not valid JSON
// (...)", "<where>: JSON nested deeper than <max_depth> levels".
Result<nlohmann::json> parse_bounded_json(std::string_view text, const std::string& where, int max_depth);

}  // namespace harness
