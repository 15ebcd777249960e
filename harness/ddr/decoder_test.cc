#include "harness/ddr/decoder.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "harness/ddr/synth.h"
#include "probes/capture/sigrok.h"

namespace harness::ddr {
namespace {

struct RoundTrip {
  Standard standard;
  std::string pattern;
  unsigned spc;
};

std::string name_of(const RoundTrip& r) {
  return std::string(standard_name(r.standard)) + "_" + r.pattern + "_" + std::to_string(r.spc);
}

void expect_same(const std::vector<Command>& want, const std::vector<Command>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(describe(want[i]), describe(got[i])) << "command " << i;
  EXPECT_TRUE(want == got);
}

class DecoderRoundTrip : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(DecoderRoundTrip, TraceToWaveformToSrToCommands) {
  const RoundTrip& p = GetParam();
  // Mixed traffic includes power-down (and DDR4 self refresh) on CKE.
  const bool cke = p.pattern == "mixed" && p.standard != Standard::lpddr5;
  Result<std::vector<Command>> trace = generate_traffic(p.standard, p.pattern, 6000, 7, 4, cke);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_GT(trace->size(), 100u);
  if (cke) {
    EXPECT_TRUE(std::any_of(trace->begin(), trace->end(), [](const Command& c) { return c.op == Op::pdx; }));
    if (p.standard == Standard::ddr4) {
      EXPECT_TRUE(std::any_of(trace->begin(), trace->end(), [](const Command& c) { return c.op == Op::sre; }));
    }
  }
  SynthOptions o;
  o.standard = p.standard;
  o.cke = cke;
  o.samples_per_clock = p.spc;
  o.jitter = p.spc >= 8 ? 1 : 0;
  o.clock_stops = {{trace->at(50).cycle + 9, 40}};
  // A clock stop must fall between commands: move later commands? They are
  // cycle-indexed by rising edges, so a stop shifts nothing.
  std::string path = (std::filesystem::temp_directory_path() / ("harness_rt_" + name_of(p) + ".sr")).string();
  {
    SrWriter writer(path);
    Status s = synthesize(*trace, o, writer);
    ASSERT_TRUE(s.ok()) << s.error().message;
  }
  CommandCollector got;
  DecodeOptions d;
  d.standard = p.standard;
  Result<BusTiming> t = decode_capture_file(path, {}, d, got);
  std::filesystem::remove(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  expect_same(*trace, got.commands);
  ASSERT_EQ(t->clock_stops.size(), 1u);
  EXPECT_EQ(t->clock_stops[0].after_cycle, trace->at(50).cycle + 9);
  EXPECT_NEAR(t->tck, o.tck, o.tck * 1e-6);
  EXPECT_TRUE(t->dqs_sampled);
  EXPECT_GT(t->dqs_active_cycles, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    AllStandards, DecoderRoundTrip,
    ::testing::Values(RoundTrip{Standard::ddr4, "stream", 4}, RoundTrip{Standard::ddr4, "random", 8},
                      RoundTrip{Standard::ddr4, "mixed", 4}, RoundTrip{Standard::ddr4, "mixed", 8},
                      RoundTrip{Standard::lpddr4, "stream", 4}, RoundTrip{Standard::lpddr4, "random", 4},
                      RoundTrip{Standard::lpddr4, "mixed", 4}, RoundTrip{Standard::lpddr4, "mixed", 8},
                      RoundTrip{Standard::lpddr5, "stream", 8}, RoundTrip{Standard::lpddr5, "random", 8},
                      RoundTrip{Standard::lpddr5, "mixed", 8}, RoundTrip{Standard::lpddr5, "mixed", 16}),
    [](const auto& info) { return name_of(info.param); });

TEST(Decoder, RefusesUndersampledCaptureNamingTheRateNeeded) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr5, "random", 2000, 3);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = Standard::lpddr5;
  o.samples_per_clock = 4;  // LPDDR5 CA is double data rate: 2 samples per CA bit
  o.tck = 10e-9;
  Capture capture;
  CaptureCollector collect;
  ASSERT_TRUE(synthesize(*trace, o, collect).ok());
  CommandCollector got;
  BusDecoder decoder({Standard::lpddr5, {}, 1e-6}, got);
  Status s = collect.capture().replay(decoder);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "capture undersampled: CK is about 100 MHz and 400 MHz samples/s give 2 samples per CA bit period; "
            "decoding lpddr5 needs at least 4: capture at 800 MHz or more, or slow the bus clock down");
}

TEST(Decoder, NamesAMissingChannel) {
  Capture c;
  c.header.channels = {"CK", "CS", "CA0"};
  c.header.samplerate = 1e9;
  c.header.unitsize = 1;
  c.data.assign(100, 0);
  CommandCollector got;
  BusDecoder decoder({Standard::lpddr4, {}, 1e-6}, got);
  Status s = c.replay(decoder);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "the capture has no channel 'CA1' for lpddr4 CA1 (did you mean 'CA0'?) (channels: CK, CS, CA0); map "
            "roles to channels in [ddr.channels]");
}

TEST(Decoder, Lpddr5BankGroupModeSplitsBankGroupsOnlyWhenAsked) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr5, "random", 4000, 5);
  ASSERT_TRUE(trace.ok());
  // The same traffic as a part in bank-group mode addresses it: BA0-1 bank,
  // BA2-3 bank group.
  std::vector<Command> grouped = *trace;
  for (Command& c : grouped)
    if (c.bank >= 0) {
      c.bank_group = c.bank >> 2;
      c.bank &= 3;
    }
  SynthOptions o;
  o.standard = Standard::lpddr5;
  CaptureCollector collect;
  ASSERT_TRUE(synthesize(grouped, o, collect).ok());
  CommandCollector as_groups, as_banks;
  DecodeOptions d{Standard::lpddr5, {}, 1e-6, true};
  ASSERT_TRUE(collect.capture().replay(*std::make_unique<BusDecoder>(d, as_groups)).ok());
  expect_same(grouped, as_groups.commands);
  d.bank_groups = false;
  ASSERT_TRUE(collect.capture().replay(*std::make_unique<BusDecoder>(d, as_banks)).ok());
  expect_same(*trace, as_banks.commands);
}

TEST(Decoder, RefusesBankGroupModeForOtherStandards) {
  CommandCollector got;
  BusDecoder decoder({Standard::lpddr4, {}, 1e-6, true}, got);
  Status s = decoder.begin({{"CK", "CS"}, 1e9, 1, "test"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "bank-group mode is an LPDDR5 setting (lpddr4 is decoded as its standard defines)");
}

// Each bank's commands go to rank bank % 2 (all-bank and bankless commands
// to rank 0): the decoder must name the rank whose chip select was active.
std::vector<Command> spread_over_two_ranks(std::vector<Command> trace) {
  for (Command& c : trace) c.rank = c.bank >= 0 ? c.bank % 2 : 0;
  return trace;
}

TEST(Decoder, NamesTheRankOfEachCommand) {
  for (Standard standard : {Standard::ddr4, Standard::lpddr4, Standard::lpddr5}) {
    SCOPED_TRACE(std::string(standard_name(standard)));
    Result<std::vector<Command>> trace = generate_traffic(standard, "random", 3000, 9);
    ASSERT_TRUE(trace.ok());
    const std::vector<Command> ranked = spread_over_two_ranks(*trace);
    SynthOptions o;
    o.standard = standard;
    o.ranks = 2;
    CaptureCollector collect;
    ASSERT_TRUE(synthesize(ranked, o, collect).ok());
    const std::string cs1 = standard == Standard::ddr4 ? "CS1_n" : "CS1";
    EXPECT_EQ(collect.capture().header.channels[2], cs1);
    CommandCollector got;
    BusDecoder decoder({standard, {}, 1e-6}, got);
    ASSERT_TRUE(collect.capture().replay(decoder).ok());
    expect_same(ranked, got.commands);
    EXPECT_TRUE(std::any_of(got.commands.begin(), got.commands.end(), [](const Command& c) { return c.rank == 1; }));
  }
}

TEST(Decoder, Ddr4IgnoresTheBusWhileCkeIsLow) {
  std::vector<Command> trace;
  auto add = [&](std::uint64_t cycle, Op op) {
    Command c;
    c.cycle = cycle;
    c.op = op;
    if (op == Op::pre) c.all_banks = true;
    trace.push_back(c);
  };
  add(10, Op::pre);
  add(20, Op::sre);
  add(60, Op::srx);
  add(80, Op::pde);
  add(100, Op::pdx);
  add(110, Op::ref);
  trace.back().all_banks = true;
  SynthOptions o;
  o.standard = Standard::ddr4;
  o.cke = true;
  o.samples_per_clock = 8;
  CaptureCollector collect;
  ASSERT_TRUE(synthesize(trace, o, collect).ok());
  // Chip select asserted in self refresh (cycle 40) is not a command: the
  // part does not listen while CKE is low.
  Capture& c = collect.capture();
  const unsigned cs = *c.header.find("CS_n"), ck = *c.header.find("CK");
  std::uint64_t cycle = 0;
  for (std::uint64_t i = 1; i < c.sample_count(); ++i) {
    const bool rise = (c.sample(i) >> ck & 1) && !(c.sample(i - 1) >> ck & 1);
    if (rise && cycle++ == 40) {
      for (std::uint64_t k = i - 2; k < i + 2; ++k) {
        std::uint32_t v = static_cast<std::uint32_t>(c.sample(k)) & ~(1u << cs);
        std::memcpy(c.data.data() + k * c.header.unitsize, &v, c.header.unitsize);
      }
      break;
    }
  }
  CommandCollector got;
  BusDecoder decoder({Standard::ddr4, {}, 1e-6}, got);
  ASSERT_TRUE(c.replay(decoder).ok());
  expect_same(trace, got.commands);
}

TEST(Decoder, SynthesizerRefusesPowerDownWithoutCke) {
  Command pde;
  pde.cycle = 10;
  pde.op = Op::pde;
  SynthOptions o;
  o.standard = Standard::ddr4;
  CaptureCollector collect;
  Status s = synthesize({pde}, o, collect);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "trace: '10 PDE' needs a CKE channel (synthesize with CKE)");
}

}  // namespace
}  // namespace harness::ddr
