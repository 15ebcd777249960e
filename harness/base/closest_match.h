// "Did you mean": the closest known name to a mistyped one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

// The closest of `candidates` to `word` when it is close enough to be a typo.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

}  // namespace harness
