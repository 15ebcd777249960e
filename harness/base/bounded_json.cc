#include "harness/base/bounded_json.h"

#include <fmt/format.h>

namespace harness {

Result<nlohmann::json> parse_bounded_json(std::string_view text, const std::string& where, int max_depth) {
  // Depth is counted in one pass over the text (brackets outside strings)
  // before nlohmann builds anything: a deeply nested value would be built
  // whole and only then exhaust the stack when converted, dumped or freed.
  // A parser callback could not refuse it either: it can only drop values.
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        return Error::input(fmt::format("{}: JSON nested deeper than {} levels", where, max_depth));
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return Error::input(fmt::format("{}: not valid JSON ({})", where, e.what()));
  }
}

}  // namespace harness
