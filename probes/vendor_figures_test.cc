#include "probes/vendor_figures.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(VendorFigures, ExtractsTheCapturedNumberInTheGivenUnit) {
  const std::string out = "mem: DDR read 48.2 GB/s\npeak INT8: 30 TOPS\n";
  EXPECT_DOUBLE_EQ(*extract_vendor_figure(out, "DDR read ([0-9.]+)", "GB/s", Dimension::bandwidth), 48.2e9);
  EXPECT_DOUBLE_EQ(*extract_vendor_figure(out, "INT8: ([0-9.]+)", "TOPS", Dimension::compute), 30e12);
}

TEST(VendorFigures, SaysWhatWasNotFound) {
  EXPECT_EQ(extract_vendor_figure("nothing", "DDR ([0-9.]+)", "GB/s", Dimension::bandwidth).error().message,
            "pattern /DDR ([0-9.]+)/ not found in the tool's output");
  EXPECT_EQ(extract_vendor_figure("DDR fast", "DDR (\\w+)", "GB/s", Dimension::bandwidth).error().message,
            "pattern /DDR (\\w+)/ matched \"fast\": expected a bandwidth such as \"50 GB/s\": expected a "
            "number followed by a unit, got \"fast GB/s\"");
  EXPECT_EQ(check_vendor_pattern("(a)(b)").error().message,
            "the pattern must have exactly one capture group (the number), it has 2");
  EXPECT_FALSE(check_vendor_pattern("(unclosed"));
}

// A real child process stands in for a vendor tool.
TEST(VendorFigures, RunsTheToolAndKeepsItsOutput) {
  VendorOutput v = run_vendor_tool("printer", {"printf", "DDR read 51.0 GB/s\\n"}, 10);
  EXPECT_EQ(v.unavailable, "");
  EXPECT_EQ(v.out, "DDR read 51.0 GB/s\n");
  VendorOutput failed = run_vendor_tool("f", {"false"}, 10);
  EXPECT_EQ(failed.unavailable, "false ended with exit status 1");
  VendorOutput missing = run_vendor_tool("m", {"no-such-vendor-tool-xyz"}, 10);
  EXPECT_NE(missing.unavailable, "");
}

}  // namespace
}  // namespace harness
