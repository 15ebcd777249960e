#include "harness/base/units.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(Units, ParsesEveryDimensionFromTheIssue) {
  EXPECT_DOUBLE_EQ(*parse_quantity("30 TOPS", Dimension::compute), 30e12);
  EXPECT_DOUBLE_EQ(*parse_quantity("50 GB/s", Dimension::bandwidth), 50e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("1 GHz", Dimension::frequency), 1e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("128 B", Dimension::size), 128);
  EXPECT_DOUBLE_EQ(*parse_quantity("60 s", Dimension::time), 60);
  EXPECT_DOUBLE_EQ(*parse_quantity("800 ms", Dimension::time), 0.8);
  EXPECT_DOUBLE_EQ(*parse_quantity("2 KiB", Dimension::size), 2048);
  EXPECT_DOUBLE_EQ(*parse_quantity("1.5GiB/s", Dimension::bandwidth), 1.5 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("4.5 W", Dimension::power), 4.5);
  EXPECT_DOUBLE_EQ(*parse_quantity("250 uJ", Dimension::energy), 250e-6);
}

TEST(Units, RejectsTheWrongDimensionWithBothNames) {
  Result<double> r = parse_quantity("50 GHz", Dimension::bandwidth);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "expected a bandwidth such as \"50 GB/s\", got \"50 GHz\", which is a frequency");
  EXPECT_EQ(r.error().code, ExitCode::bad_input);
}

TEST(Units, RejectsUnknownUnitsMissingUnitsAndGarbage) {
  EXPECT_EQ(parse_quantity("50 GB/h", Dimension::bandwidth).error().message,
            "expected a bandwidth such as \"50 GB/s\": unknown unit \"GB/h\" in \"50 GB/h\"");
  EXPECT_EQ(parse_quantity("50", Dimension::bandwidth).error().message,
            "expected a bandwidth such as \"50 GB/s\": \"50\" has no unit");
  EXPECT_FALSE(parse_quantity("fast", Dimension::time));
  EXPECT_FALSE(parse_quantity("", Dimension::time));
  EXPECT_FALSE(parse_quantity("-5 s", Dimension::time));
  EXPECT_FALSE(parse_quantity("inf s", Dimension::time));
}

// Figures no device has (input_limits.h): "1e308 TB/s" is infinite once
// scaled, "2 PB/s" finite but twice the limit; both are refused, the limit
// itself is not.
TEST(Units, RefusesFiguresBeyondAnyDevice) {
  EXPECT_EQ(parse_quantity("1e308 TB/s", Dimension::bandwidth).error().message,
            "expected a bandwidth such as \"50 GB/s\": \"1e308 TB/s\" is not a finite number");
  EXPECT_EQ(parse_quantity("2000 TB/s", Dimension::bandwidth).error().message,
            "\"2000 TB/s\" is more than 1 PB/s, beyond any device (the limits of harness/base/input_limits.h)");
  EXPECT_DOUBLE_EQ(*parse_quantity("1000 TB/s", Dimension::bandwidth), 1e15);
  EXPECT_EQ(parse_quantity("1e7 POPS", Dimension::compute).error().message,
            "\"1e7 POPS\" is more than 1000 Pop/s, beyond any device (the limits of harness/base/input_limits.h)");
  EXPECT_EQ(parse_quantity("9000 h", Dimension::time).error().message,
            "\"9000 h\" is more than 3.156e+07 s, beyond any device (the limits of harness/base/input_limits.h)");
  EXPECT_FALSE(parse_quantity("2 THz", Dimension::frequency));
  EXPECT_FALSE(parse_quantity("2000 TiB", Dimension::size));
  EXPECT_FALSE(parse_quantity("2000 kW", Dimension::power));
  EXPECT_FALSE(parse_quantity("1e12 kJ", Dimension::energy));
  EXPECT_FALSE(parse_quantity("1e308 TB"));  // untyped: still finite
}

TEST(Units, UnitSymbolsAreCaseSensitive) {
  EXPECT_DOUBLE_EQ(*parse_quantity("5 mW", Dimension::power), 5e-3);
  EXPECT_FALSE(parse_quantity("5 MW", Dimension::power));
}

TEST(Units, FormatsWithEngineeringPrefixes) {
  EXPECT_EQ(format_quantity(31.2e9, "B/s"), "31.2 GB/s");
  EXPECT_EQ(format_quantity(0.0123, "s"), "12.3 ms");
  EXPECT_EQ(format_quantity(4.2e-6, "s"), "4.2 us");
  EXPECT_EQ(format_quantity(128, "B"), "128 B");
  EXPECT_EQ(format_quantity(0.5, "1"), "0.5");
}

}  // namespace
}  // namespace harness
