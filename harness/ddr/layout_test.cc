// Finding each DDR role's channel in a capture named by another tool.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/ddr/sampler.h"

namespace harness::ddr {
namespace {

using Channels = std::vector<std::string>;

Result<BusLayout> layout(Standard s, const Channels& channels, std::map<std::string, std::string> roles = {}) {
  return make_layout(s, channels, roles);
}

Channels lpddr4_with(const std::string& ck, const std::string& cs, const std::string& ca_pattern) {
  Channels c = {ck, cs};
  for (int i = 0; i < 6; ++i) c.push_back(fmt::format(fmt::runtime(ca_pattern), i));
  return c;
}

TEST(BusLayoutNames, FindsTheClockUnderItsUsualNamesButNeverTheComplement) {
  for (const char* ck : {"CK", "CK_t", "CK_T", "ck_t", "CLK", "clk", "tb.dut.CK_t"}) {
    Result<BusLayout> l = layout(Standard::lpddr4, lpddr4_with(ck, "CS", "CA{}"));
    ASSERT_TRUE(l.ok()) << ck << ": " << l.error().message;
    EXPECT_EQ(l->ck, 0u) << ck;
  }
  Result<BusLayout> l = layout(Standard::lpddr4, lpddr4_with("CK_c", "CS", "CA{}"));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message.rfind("the capture has no channel 'CK' for lpddr4 CK", 0), 0u) << l.error().message;
  // Both the true and the complement clock: the true one.
  Channels both = lpddr4_with("CK_c", "CS", "CA{}");
  both.push_back("CK_t");
  l = layout(Standard::lpddr4, both);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->ck, 8u);
}

TEST(BusLayoutNames, FindsChipSelectSpellingsWithTheStandardsPolarity) {
  for (Standard s : {Standard::lpddr4, Standard::ddr4}) {
    for (const char* cs : {"CS", "CS_n", "CS0", "CS_N", "CSn", "cs_n", "CS#"}) {
      Channels c = {"CK", cs};
      for (const std::string& pin : bus_format(s).pins) c.push_back(pin);
      Result<BusLayout> l = layout(s, c);
      ASSERT_TRUE(l.ok()) << cs << ": " << l.error().message;
      EXPECT_EQ(l->chip_selects[0], 1u) << cs;
    }
  }
  // The polarity comes from the standard, not from the name.
  EXPECT_FALSE(bus_format(Standard::ddr4).chip_select_active_high);
  EXPECT_TRUE(bus_format(Standard::lpddr4).chip_select_active_high);
  EXPECT_TRUE(bus_format(Standard::lpddr5).chip_select_active_high);
  // A second rank's chip select is not the first's.
  Result<BusLayout> l = layout(Standard::lpddr4, lpddr4_with("CK", "CS1", "CA{}"));
  ASSERT_FALSE(l.ok());
}

TEST(BusLayoutNames, FindsCommandAddressBitsInEveryIndexStyle) {
  for (const char* pattern : {"CA{}", "CA[{}]", "CA_{}", "ca{}", "tb.if.CA[{}]", "Ca_{}"}) {
    Result<BusLayout> l = layout(Standard::lpddr4, lpddr4_with("CK", "CS", pattern));
    ASSERT_TRUE(l.ok()) << pattern << ": " << l.error().message;
    EXPECT_EQ(l->pins, (std::vector<unsigned>{2, 3, 4, 5, 6, 7})) << pattern;
    EXPECT_TRUE(l->contiguous);
  }
}

TEST(BusLayoutNames, FindsDdr4PinsUnderTheirDatasheetNames) {
  Channels c = {"CK_t", "CS_n", "ACT_n", "RAS_n/A16", "CAS_n/A15", "WE_n/A14"};
  for (int i = 0; i <= 13; ++i) c.push_back(i == 10 ? "A10/AP" : i == 12 ? "A12/BC_n" : fmt::format("A[{}]", i));
  c.insert(c.end(), {"A17", "BA[0]", "BA[1]", "BG_0", "BG_1", "DQS0_t", "DQS0_c"});
  Result<BusLayout> l = layout(Standard::ddr4, c);
  ASSERT_TRUE(l.ok()) << l.error().message;
  // Pin order: ACT_n RAS_n CAS_n WE_n BG0 BG1 BA0 BA1 A0..A13 A17.
  std::vector<unsigned> want = {2, 3, 4, 5, 23, 24, 21, 22};
  for (unsigned i = 0; i <= 13; ++i) want.push_back(6 + i);
  want.push_back(20);
  EXPECT_EQ(l->pins, want);
  EXPECT_FALSE(l->contiguous);
  EXPECT_EQ(l->dqs_names, std::vector<std::string>{"DQS0_t"});  // not the complement
  // RAS_n/CAS_n/WE_n named only by their address function.
  Channels a = {"CK", "CS_n", "ACT_n", "A16", "A15", "A14"};
  for (int i = 0; i <= 13; ++i) a.push_back(fmt::format("A{}", i));
  a.insert(a.end(), {"BA0", "BA1", "BG0", "BG1"});
  l = layout(Standard::ddr4, a);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->pins[1], 3u);
  EXPECT_EQ(l->pins[3], 5u);
  EXPECT_EQ(l->pins.back(), kAbsent);  // A17 unconnected
}

TEST(BusLayoutNames, FindsStrobesWhateverTheirIndexStyle) {
  Channels c = lpddr4_with("CK", "CS", "CA{}");
  c.insert(c.end(), {"DQS[0]", "dqs1_t", "DQS1_c", "RDQS_t", "DQ0"});
  Result<BusLayout> l = layout(Standard::lpddr4, c);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->dqs_names, (std::vector<std::string>{"DQS[0]", "dqs1_t", "RDQS_t"}));
}

TEST(BusLayoutNames, FindsAProbedStrobeByItsTrueSignalsName) {
  Channels c = lpddr4_with("CK_t", "CS", "CA{}");
  c.insert(c.end(), {"DQS0_c", "DQS0_t"});
  Result<BusLayout> l =
      make_layout(Standard::lpddr4, c, {}, {"", {"CK", "CS", "CA0", "CA1", "CA2", "CA3", "CA4", "CA5", "DQS0"}});
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->dqs_names, std::vector<std::string>{"DQS0_t"});
}

TEST(BusLayoutNames, ChannelsInAnyOrderUseTheScatteredPath) {
  Channels c = {"CA3", "CS", "CA0", "CK", "CA5", "CA1", "CA4", "CA2"};
  Result<BusLayout> l = layout(Standard::lpddr4, c);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->ck, 3u);
  EXPECT_EQ(l->chip_selects[0], 1u);
  EXPECT_EQ(l->pins, (std::vector<unsigned>{2, 5, 7, 0, 6, 4}));
  EXPECT_FALSE(l->contiguous);
  // word(): CA0 is bit 0 whatever its channel.
  const std::uint64_t first = std::uint64_t{1} << 2 | std::uint64_t{1} << 0;  // CA0, CA3
  EXPECT_EQ(l->word(first, 0), 0b001001u);
}

TEST(BusLayoutNames, RefusesTwoChannelsThatFitOneRole) {
  Result<BusLayout> l = layout(Standard::lpddr4, {"CK", "CS", "CA[0]", "CA_0", "CA1", "CA2", "CA3", "CA4", "CA5"});
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message,
            "channels 'CA[0]' and 'CA_0' all fit lpddr4 CA0: say which one in [ddr.channels] (CA0 = \"...\")");
  l = layout(Standard::lpddr4, lpddr4_with("CK_t", "CS", "CA{}"), {});
  ASSERT_TRUE(l.ok());
  Channels two_clocks = lpddr4_with("CK_t", "CS", "CA{}");
  two_clocks.push_back("CLK");
  l = layout(Standard::lpddr4, two_clocks);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message,
            "channels 'CK_t' and 'CLK' all fit lpddr4 CK: say which one in [ddr.channels] (CK = \"...\")");
  // An explicit mapping settles it; a channel named exactly as the role wins.
  l = layout(Standard::lpddr4, two_clocks, {{"CK", "CLK"}});
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->ck, 8u);
  two_clocks.push_back("CK");
  l = layout(Standard::lpddr4, two_clocks);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->ck, 9u);
}

TEST(BusLayoutNames, AnExplicitMappingIsTakenLiterally) {
  Channels saleae = {"digital_0", "digital_1", "digital_2", "digital_3", "digital_4",
                     "digital_5", "digital_6", "digital_7"};
  std::map<std::string, std::string> roles = {{"CK", "digital_7"}, {"CS", "digital_6"}};
  for (int i = 0; i < 6; ++i) roles[fmt::format("CA{}", i)] = fmt::format("digital_{}", i);
  Result<BusLayout> l = layout(Standard::lpddr4, saleae, roles);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->ck, 7u);
  EXPECT_EQ(l->chip_selects[0], 6u);
  EXPECT_TRUE(l->contiguous);
  roles["CS"] = "Digital_6";  // mapped names are exact
  l = layout(Standard::lpddr4, saleae, roles);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message.rfind("the capture has no channel 'Digital_6' for lpddr4 CS (did you mean "
                                    "'digital_6'?)",
                                    0),
            0u)
      << l.error().message;
}

}  // namespace
}  // namespace harness::ddr
