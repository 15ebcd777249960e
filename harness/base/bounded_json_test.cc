#include "harness/base/bounded_json.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace harness {
namespace {

using nlohmann::json;

TEST(JsonInteger, AnIntegerThatFitsIsRead) {
  EXPECT_EQ(json_integer<int>(json::parse("-7")), -7);
  EXPECT_EQ(json_integer<std::uint64_t>(json::parse("18446744073709551615")), UINT64_MAX);
  EXPECT_EQ(json_integer<std::int64_t>(json::parse("-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(json_integer<std::uint32_t>(json(std::int64_t{4000000000})), 4000000000u);
}

// nlohmann's get<T>() would cast each of these (undefined behaviour for the
// floats out of range); json_integer throws the library's type_error instead.
TEST(JsonInteger, AnythingElseIsTheLibrarysTypeError) {
  for (const char* text : {"5.02222e80", "2.5", "-1e300", "\"12\"", "null", "true", "[1]"}) {
    EXPECT_THROW(json_integer<std::int64_t>(json::parse(text)), json::type_error) << text;
  }
  EXPECT_THROW(json_integer<int>(json::parse("2147483648")), json::type_error);
  EXPECT_THROW(json_integer<int>(json::parse("-2147483649")), json::type_error);
  EXPECT_THROW(json_integer<std::uint64_t>(json::parse("-1")), json::type_error);
  EXPECT_THROW(json_integer<std::int64_t>(json::parse("9223372036854775808")), json::type_error);
  EXPECT_THROW(json_integer<std::uint32_t>(json(std::int64_t{5000000000})), json::type_error);
  try {
    json_integer<int>(json::parse("2.5"));
  } catch (const json::type_error& e) {
    EXPECT_STREQ(e.what(), "[json.exception.type_error.302] type must be an integer, but is 2.5");
  }
}

TEST(JsonRead, IntegersAndTheirVectorsGoThroughJsonIntegerTheRestAsGetTo) {
  int n = 0;
  json_read(json::parse("12"), n);
  EXPECT_EQ(n, 12);
  std::vector<std::uint64_t> sizes;
  json_read(json::parse("[64, 128]"), sizes);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{64, 128}));
  double d = 0;
  json_read(json::parse("3"), d);
  EXPECT_EQ(d, 3.0);
  std::string text;
  json_read(json::parse("\"x\""), text);
  EXPECT_EQ(text, "x");
  EXPECT_THROW(json_read(json::parse("1e300"), n), json::type_error);
  EXPECT_THROW(json_read(json::parse("[64, 1e300]"), sizes), json::type_error);
  EXPECT_THROW(json_read(json::parse("{}"), sizes), json::type_error);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{64, 128}));  // untouched by a refused read
}

}  // namespace
}  // namespace harness
