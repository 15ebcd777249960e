// libFuzzer target for the one JSON reader (harness/base/bounded_json.h):
// on any bytes it returns a document or an error, never crashes; what it
// returns is exactly nlohmann's own parse of the same text; what it refuses
// as invalid nlohmann refuses too; a refusal for depth or memory is one the
// limits call for. The limits are small (depth 8, 64 KiB of values) so that
// the fuzzer reaches them with small inputs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"

namespace {

// The depth of the text's brackets outside strings.
int depth_of(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const harness::JsonLimits limits{.bytes = 1 << 20, .depth = 8, .memory = 64 << 10};
  harness::Result<nlohmann::json> got = harness::parse_bounded_json(text, "fuzz.json", limits);
  const bool deep = depth_of(text) > limits.depth;
  // No JSON text has a NUL byte; nlohmann's lexer would stop at one.
  if (text.find('\0') != std::string_view::npos) {
    if (got || got.error().message.find("not valid JSON: a NUL byte") == std::string::npos) __builtin_trap();
    return 0;
  }
  if (got) {
    if (deep) __builtin_trap();  // a document past the depth limit was accepted
    if (*got != nlohmann::json::parse(text)) __builtin_trap();  // not the library's own parse
    return 0;
  }
  const std::string& message = got.error().message;
  if (message.empty()) __builtin_trap();
  // A syntax error quotes the text it stopped at, which may say anything
  // ("nested deeper" too): its kind is told first.
  if (message.find("not valid JSON") != std::string::npos) {
    // Only a text nlohmann rejects (checked when shallow: its own parse of
    // a deep one is what the reader exists to avoid).
    if (!deep && nlohmann::json::accept(text)) __builtin_trap();
  } else if (message.find("nested deeper") != std::string::npos) {
    if (!deep) __builtin_trap();
  } else if (message.find("bytes of memory") == std::string::npos) {
    __builtin_trap();  // an error of no known kind
  }
  return 0;
}
