#include "harness/base/bounded_json.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

using nlohmann::json;

std::string refusal(std::string_view text, const JsonLimits& limits = {}) {
  Result<json> j = parse_bounded_json(text, "in.json", limits);
  return j ? "parsed" : j.error().message;
}

TEST(BoundedJson, ADocumentWithinItsLimitsIsTheLibrarysOwnParse) {
  const std::string text = R"({"a": [1, -2, 3.5, "x\u00e9", null, true, {"b": {}}, []], "c": "a string longer than 15 bytes"})";
  Result<json> j = parse_bounded_json(text, "in.json");
  ASSERT_TRUE(j) << j.error().message;
  EXPECT_EQ(*j, json::parse(text));
  EXPECT_EQ(*parse_bounded_json("7", "in.json"), json(7));
  EXPECT_EQ(*parse_bounded_json(R"({"k": 1, "k": 2})", "in.json"), json::parse(R"({"k": 1, "k": 2})"));  // last wins
}

TEST(BoundedJson, SyntaxErrorsNameTheLineAndColumn) {
  EXPECT_EQ(refusal("{\n  \"a\": tru\n}"), "in.json:2:11: not valid JSON: syntax error while parsing value - "
                                             "invalid literal; last read: '\"a\": tru<U+000A>'");
  EXPECT_EQ(refusal(""), "in.json:1:1: not valid JSON: syntax error while parsing value - unexpected end of input; "
                         "expected '[', '{', or a literal");
  EXPECT_EQ(refusal("[1e400]"), "in.json:1:6: not valid JSON: number overflow parsing '1e400'");
  EXPECT_EQ(refusal("[1] [2]"), "in.json:1:5: not valid JSON: syntax error while parsing value - unexpected '['; "
                                "expected end of input");
  EXPECT_EQ(refusal("\"\xff\""), "in.json:1:2: not valid JSON: syntax error while parsing value - invalid string: "
                                  "ill-formed UTF-8 byte; last read: '\"\xff'");
}

// nlohmann's lexer takes a NUL for the end of the input: "0\0..." would be 0.
TEST(BoundedJson, ANulByteIsRefusedWhereItIs) {
  using namespace std::string_literals;
  EXPECT_EQ(refusal("0\0{\"ignored\": 1}"s), "in.json:1:2: not valid JSON: a NUL byte");
  EXPECT_EQ(refusal("{\"a\":\n \"b\0\"}"s), "in.json:2:4: not valid JSON: a NUL byte");
}

TEST(BoundedJson, TheSizeIsCheckedBeforeParsing) {
  EXPECT_EQ(refusal("[1, 2, 3]", {.bytes = 8}), "in.json: 9 bytes of JSON is more than the 8 allowed");
  EXPECT_EQ(refusal("[1, 2, 3]", {.bytes = 9}), "parsed");
}

// Nesting is refused at the first bracket past the limit, by a parser that
// keeps its own nesting on the heap: two million levels (the depth that
// crashed the readers, issue 29) take no stack.
TEST(BoundedJson, NestingPastTheLimitIsRefusedWhereItHappens) {
  EXPECT_EQ(refusal(std::string(64, '[') + std::string(64, ']')), "parsed");
  EXPECT_EQ(refusal(std::string(65, '[') + std::string(65, ']')), "in.json:1:65: JSON nested deeper than 64 levels");
  EXPECT_EQ(refusal("{\"a\": [\n[[{\"b\": \"]]]]\"}]]]}", {.depth = 3}),
            "in.json:2:2: JSON nested deeper than 3 levels");
  const std::string deep = std::string(2000000, '[') + std::string(2000000, ']');
  EXPECT_EQ(refusal(deep, {.bytes = deep.size()}), "in.json:1:65: JSON nested deeper than 64 levels");
  std::string objects;
  for (int i = 0; i < 1000000; ++i) objects += "{\"a\":";
  EXPECT_EQ(refusal(objects, {.bytes = objects.size()}), "in.json:1:321: JSON nested deeper than 64 levels");
}

// The memory the values take, charged as they are built (the limit is the
// element limit, weighted by each element's cost): 200,000 numbers pass
// where as many empty objects or strings, in 1.5x the text, are refused.
TEST(BoundedJson, ValuesPastTheMemoryLimitAreRefusedAsTheyAreBuilt) {
  auto many = [](const char* element) {
    std::string t = "[";
    for (int i = 0; i < 200000; ++i) t += (i ? "," : "") + std::string(element);
    return t + "]";
  };
  const JsonLimits limits{.memory = 8 << 20};
  const std::string refused = "in.json: JSON values would take more than 8388608 bytes of memory (the limit for this "
                              "input)";
  EXPECT_EQ(refusal(many("0"), limits), "parsed");
  EXPECT_EQ(refusal(many("{}"), limits), refused);
  EXPECT_EQ(refusal(many("\"\""), limits), refused);
  std::string members = "{";
  for (int i = 0; i < 100000; ++i) members += fmt::format("{}\"{}\":0", i ? "," : "", i);
  EXPECT_EQ(refusal(members + "}", limits), refused);
  EXPECT_EQ(refusal(R"(["a string well over fifteen bytes"])", {.memory = 16 + 32 + 48 + 40}),
            "in.json: JSON values would take more than 136 bytes of memory (the limit for this input)");
}

TEST(BoundedJson, AFileIsReadAsARegularFileWithinItsSize) {
  const std::string dir = testing_support::fresh_test_dir("bounded-json").string();
  std::ofstream(dir + "/doc.json") << R"({"a": 1})";
  Result<json> j = read_bounded_json_file(dir + "/doc.json", {.bytes = 100}, "document");
  ASSERT_TRUE(j) << j.error().message;
  EXPECT_EQ((*j)["a"], 1);
  EXPECT_EQ(read_bounded_json_file(dir + "/doc.json", {.bytes = 4}, "document").error().message,
            dir + "/doc.json: 8 bytes is more than the 4 allowed");
  EXPECT_EQ(read_bounded_json_file(dir + "/none.json", {}, "document").error().message,
            dir + "/none.json: cannot open document: No such file or directory");
  std::filesystem::remove_all(dir);
}

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
