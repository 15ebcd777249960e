// The one JSON reader for everything the harness reads (files, stored
// recordings, the agent's lines): the document within its limits — size,
// nesting depth, and the memory its values take once parsed — refused with
// an error naming the input (and line:column) before the limit is passed,
// never by recursion into a crash or an allocation that ends the process.
// And integers read within their type's range.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/base/input_limits.h"
#include "harness/base/result.h"

namespace harness {

struct JsonLimits {
  std::uint64_t bytes = kMaxRecordingBytes;  // the text; the default is the largest document the harness reads
  int depth = kMaxJsonDepth;                 // arrays and objects inside each other
  // What the parsed values may take in memory, estimated as they are built
  // (16 bytes a value, 32 an array element, 96 an object member, plus what
  // each string, array and object allocates): the element limit, weighted by
  // what an element costs, so that a million numbers pass where a million
  // empty objects in as many bytes of text would not.
  std::uint64_t memory = kMaxJsonMemoryBytes;
};

// Parses `text`; `where` names the input in errors:
//   "<where>: 5000000 bytes of JSON is more than the 4194304 allowed"
//   "<where>:3:17: not valid JSON: syntax error while parsing object key - ..."
//   "<where>:1:65: JSON nested deeper than 64 levels"
//   "<where>: JSON values would take more than 268435456 bytes of memory"
Result<nlohmann::json> parse_bounded_json(std::string_view text, const std::string& where,
                                          const JsonLimits& limits = {});

// A regular file (read_regular_file: no FIFO, device or symlinked-away
// surprise, at most limits.bytes), parsed by parse_bounded_json; `what`
// names it in the size error ("site manifest").
Result<nlohmann::json> read_bounded_json_file(const std::string& path, const JsonLimits& limits,
                                              std::string_view what = "JSON file");

// `v` as an integer of type Int. nlohmann's get<Int>() casts whatever number
// it holds, and a float out of Int's range (5e80 read as a size) is undefined
// behaviour; here anything but an integer that fits throws the library's own
// type_error, which the callers already turn into an error naming the input.
template <typename Int>
Int json_integer(const nlohmann::json& v) {
  static_assert(std::numeric_limits<Int>::is_integer);
  auto refuse = [&](const char* why) -> Int {
    throw nlohmann::json::type_error::create(302, std::string(why) + ", but is " + v.dump(), &v);
  };
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) return refuse("an integer out of range");
    return static_cast<Int>(u);
  }
  if (v.is_number_integer()) {
    const std::int64_t i = v.get<std::int64_t>();
    if constexpr (std::numeric_limits<Int>::is_signed) {
      if (i < static_cast<std::int64_t>(std::numeric_limits<Int>::min()) ||
          i > static_cast<std::int64_t>(std::numeric_limits<Int>::max()))
        return refuse("an integer out of range");
    } else {
      if (i < 0) return refuse("a non-negative integer is expected");
      if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))
        return refuse("an integer out of range");
    }
    return static_cast<Int>(i);
  }
  return refuse("type must be an integer");
}

template <typename T>
struct is_integer_vector : std::false_type {};
template <typename E, typename A>
struct is_integer_vector<std::vector<E, A>> : std::bool_constant<std::is_integral_v<E> && !std::is_same_v<E, bool>> {};

// `v` into `out` as get_to would, with every integer (a field, or the
// elements of a vector) read through json_integer.
template <typename T>
void json_read(const nlohmann::json& v, T& out) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    out = json_integer<T>(v);
  } else if constexpr (is_integer_vector<T>::value) {
    if (!v.is_array()) throw nlohmann::json::type_error::create(302, "type must be an array, but is " + v.dump(), &v);
    T read;
    read.reserve(v.size());
    for (const nlohmann::json& e : v) read.push_back(json_integer<typename T::value_type>(e));
    out = std::move(read);
  } else {
    v.get_to(out);
  }
}

}  // namespace harness
