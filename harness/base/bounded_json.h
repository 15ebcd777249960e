// JSON read from a file with its limits: size (checked by the caller before
// reading) and nesting depth, tracked while parsing so that a deeply nested
// document is refused before it exhausts the stack; and integers read within
// their type's range.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/base/result.h"

namespace harness {

// Parses `text`; `where` names the file in errors: "<where>: not valid JSON
// (...)", "<where>: JSON nested deeper than <max_depth> levels".
Result<nlohmann::json> parse_bounded_json(std::string_view text, const std::string& where, int max_depth);

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
