#include "harness/ddr/decoder.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "harness/ddr/metrics.h"
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
  EXPECT_GT(t->strobes.toggles, 0);
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
            "roles to channels in [ddr.channels] (capture decode: --map CA1=CHANNEL); if CA1 was not probed, list the "
            "roles that were with --probed (scenario: probed = [...]): fields on the others are reported unknown");
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
  Status s = decoder.begin({{"CK", "CS"}, 1e9, 1, "test", std::nullopt, {}});
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

namespace harness::ddr {
namespace {

// The pins a 16-channel analyzer takes off a DDR4 x16 bus: the command pins,
// BG0/BA0/BA1, A10 (AP/AB) and A12 (BC_n), one strobe.
const std::vector<std::string> kSixteenChannelDdr4 = {"CK",  "CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n",
                                                      "BG0", "BA0",  "BA1",   "A10",   "A12",   "DQS0"};

Capture synth_capture(const std::vector<Command>& trace, SynthOptions o) {
  CaptureCollector collect;
  Status s = synthesize(trace, o, collect);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return collect.capture();
}

Result<std::vector<Command>> decode_with(const Capture& capture, DecodeOptions d) {
  CommandCollector got;
  BusDecoder decoder(d, got);
  Status s = capture.replay(decoder);
  if (!s) return s.error();
  return got.commands;
}

TEST(ProbeSets, Ddr4X16HasNoBg1AndDecodesExactly) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::ddr4, "mixed", 6000, 11, 4, false, 2);
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(std::any_of(trace->begin(), trace->end(), [](const Command& c) { return c.bank_group == 1; }));
  SynthOptions o;
  o.standard = Standard::ddr4;
  o.organisation = "x16";
  const Capture capture = synth_capture(*trace, o);
  const auto& ch = capture.header.channels;
  EXPECT_EQ(std::find(ch.begin(), ch.end(), "BG1"), ch.end());
  // As an x4/x8 part the decoder wants BG1...
  Result<std::vector<Command>> refused = decode_with(capture, {Standard::ddr4, {}, 1e-6});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message.rfind("the capture has no channel 'BG1' for ddr4 BG1", 0), 0u)
      << refused.error().message;
  // ...as an x16 part it has none, and every field is known.
  DecodeOptions d{Standard::ddr4, {}, 1e-6};
  d.probes.organisation = "x16";
  Result<std::vector<Command>> got = decode_with(capture, d);
  ASSERT_TRUE(got.ok()) << got.error().message;
  expect_same(*trace, *got);
  // The synthesizer refuses a bank group an x16 part does not have.
  Command act;
  act.cycle = 10;
  act.op = Op::act;
  act.bank_group = 2;
  act.bank = 0;
  act.row = 1;
  CaptureCollector collect;
  Status s = synthesize({act}, o, collect);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "trace: '10 ACT bg2 ba0 row 0x1' names bank group 2; an x16 part has bank groups 0 and 1");
}

// The ground truth as the reduced probe set must decode it: row and column
// unknown (A0-A9, A11, A13 not probed), MRS operands unknown (on A0-A13).
std::vector<Command> as_reduced_set_knows_it(std::vector<Command> trace) {
  for (Command& c : trace) {
    if (c.op == Op::act) {
      c.row = -1;
      c.unknown = kUnknownRow;
    }
    if (is_column(c.op)) {
      c.column = -1;
      c.unknown = kUnknownColumn;
    }
    if (c.op == Op::mrs) {
      c.operand = -1;
      c.unknown = kUnknownOperand;
    }
  }
  return trace;
}

TEST(ProbeSets, Ddr4SixteenChannelProbeSetDecodesCountsBytesAndRowBufferExactly) {
  for (const char* pattern : {"random", "mixed", "stream"}) {
    SCOPED_TRACE(pattern);
    Result<std::vector<Command>> trace = generate_traffic(Standard::ddr4, pattern, 20000, 3, 4, false, 2);
    ASSERT_TRUE(trace.ok());
    SynthOptions o;
    o.standard = Standard::ddr4;
    o.organisation = "x16";
    o.probed = kSixteenChannelDdr4;
    const Capture capture = synth_capture(*trace, o);
    ASSERT_EQ(capture.header.channels, kSixteenChannelDdr4);
    DecodeOptions d{Standard::ddr4, {}, 1e-6};
    d.probes = {"x16", kSixteenChannelDdr4};
    BusStatistics decoded_stats({Standard::ddr4, 16});
    CommandCollector got;
    struct Both : CommandSink {
      std::vector<CommandSink*> sinks;
      void on_commands(std::span<const Command> c) override {
        for (CommandSink* s : sinks) s->on_commands(c);
      }
    } both;
    both.sinks = {&decoded_stats, &got};
    BusDecoder decoder(d, both);
    ASSERT_TRUE(capture.replay(decoder).ok());
    expect_same(as_reduced_set_knows_it(*trace), got.commands);
    // Every figure that needs no row or column is the ground truth's.
    const BusTiming& timing = decoder.timing();
    EXPECT_EQ(timing.coverage.unprobed_pins(), "A0-A9, A11, A13, A17");
    BusStatistics truth_stats({Standard::ddr4, 16});
    truth_stats.on_commands(*trace);
    const BusSummary want = truth_stats.finish(timing), have = decoded_stats.finish(timing);
    EXPECT_EQ(have.command_counts, want.command_counts);
    EXPECT_EQ(have.reads, want.reads);
    EXPECT_EQ(have.writes, want.writes);
    EXPECT_EQ(have.read_bytes, want.read_bytes);
    EXPECT_EQ(have.write_bytes, want.write_bytes);
    EXPECT_EQ(have.transaction_bytes, want.transaction_bytes);
    EXPECT_EQ(have.row_hits, want.row_hits);
    EXPECT_EQ(have.row_misses, want.row_misses);
    EXPECT_EQ(have.row_conflicts, want.row_conflicts);
    EXPECT_EQ(have.row_unknown, want.row_unknown);
    EXPECT_EQ(have.refreshes, want.refreshes);
    EXPECT_EQ(have.read_interval_cycles.counts, want.read_interval_cycles.counts);
    EXPECT_GT(want.reads, 100u);
    if (std::string(pattern) == "random") {
      EXPECT_GT(want.row_conflicts, 10u);
    }
    for (Figure f : {Figure::reads, Figure::writes, Figure::bytes, Figure::transactions, Figure::read_intervals,
                     Figure::command_activity, Figure::row_buffer, Figure::refreshes})
      EXPECT_EQ(unknown_because(timing.coverage, f), "") << static_cast<int>(f);
  }
}

TEST(ProbeSets, Ddr4X8WithoutBg1OrA12SaysWhatItCannotKnow) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::ddr4, "random", 4000, 3);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = Standard::ddr4;
  o.probed = {"CK", "CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n", "BG0", "BA0", "BA1", "A10"};
  const Capture capture = synth_capture(*trace, o);
  DecodeOptions d{Standard::ddr4, {}, 1e-6};
  d.probes.probed = o.probed;
  CommandCollector got;
  BusDecoder decoder(d, got);
  ASSERT_TRUE(capture.replay(decoder).ok());
  ASSERT_EQ(got.commands.size(), trace->size());
  for (const Command& c : got.commands) {
    if (!is_column(c.op)) continue;
    EXPECT_EQ(c.unknown, kUnknownBankGroup | kUnknownColumn | kUnknownBurst) << describe(c);
    EXPECT_EQ(c.bank_group, -1);
    EXPECT_EQ(c.burst, 0);
  }
  const ProbeCoverage& cov = decoder.timing().coverage;
  EXPECT_EQ(unknown_because(cov, Figure::reads), "");
  EXPECT_EQ(unknown_because(cov, Figure::bytes), "A12 not probed");
  EXPECT_EQ(unknown_because(cov, Figure::row_buffer), "BG1 not probed");
  EXPECT_EQ(unknown_because(cov, Figure::transactions), "BG1, A12 not probed");
}

TEST(ProbeSets, WithoutWeNReadsAndWritesAreNotToldApart) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::ddr4, "random", 4000, 3, 4, false, 2);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = Standard::ddr4;
  o.organisation = "x16";
  o.probed = {"CK", "CS_n", "ACT_n", "RAS_n", "CAS_n", "BG0", "BA0", "BA1", "A10", "A12"};
  const Capture capture = synth_capture(*trace, o);
  DecodeOptions d{Standard::ddr4, {}, 1e-6};
  d.probes = {"x16", o.probed};
  CommandCollector got;
  BusDecoder decoder(d, got);
  ASSERT_TRUE(capture.replay(decoder).ok());
  ASSERT_EQ(got.commands.size(), trace->size());
  for (std::size_t i = 0; i < trace->size(); ++i) {
    const Op want = (*trace)[i].op;
    // ACT is told by ACT_n alone, PRE (H L H ?) by RAS_n/CAS_n; REF (H L L H)
    // looks like MRS (H L L L), RD (H H L H) like WR (H H L L).
    if (want == Op::act || want == Op::pre) {
      EXPECT_EQ(got.commands[i].op, want) << i;
    }
    if (is_column(want) || want == Op::ref) {
      EXPECT_EQ(got.commands[i].op, Op::unknown) << i;
    }
  }
  const ProbeCoverage& cov = decoder.timing().coverage;
  EXPECT_EQ(cov.ambiguous_names, (std::vector<std::string>{"MRS/REF", "WR/RD", "ZQC/NOP"}))
      << fmt::format("{}", fmt::join(cov.ambiguous_names, " "));
  EXPECT_EQ(unknown_because(cov, Figure::reads), "WE_n not probed");
  EXPECT_EQ(unknown_because(cov, Figure::row_buffer), "WE_n not probed");
}

TEST(ProbeSets, RefusesAProbeSetThatTellsNoCommandApart) {
  SynthOptions o;
  o.standard = Standard::ddr4;
  o.organisation = "x16";
  o.probed = {"CK", "CS_n", "BG0", "BA0", "BA1", "A10"};
  Result<std::vector<Command>> trace = generate_traffic(Standard::ddr4, "random", 1000, 3, 4, false, 2);
  const Capture capture = synth_capture(*trace, o);
  DecodeOptions d{Standard::ddr4, {}, 1e-6};
  d.probes = {"x16", o.probed};
  Result<std::vector<Command>> got = decode_with(capture, d);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message,
            "the probed pins tell no ddr4 command from another: decoding needs CK, CS_n and ACT_n, RAS_n, CAS_n, WE_n "
            "(ACT_n, RAS_n, CAS_n, WE_n not probed)");
  d.probes = {"x16", {"CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n"}};
  got = decode_with(capture, d);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message,
            "probed: decoding needs CK and CS_n (command cycles are the CK edges with chip select active)");
  d.probes = {"x16", {"CK", "CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n", "BG1"}};
  got = decode_with(capture, d);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message, "probed: BG1 does not exist on x16 DDR4 parts (organisation x16)");
  d.probes = {"", {"CK", "CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n", "BA3"}};
  got = decode_with(capture, d);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message,
            "probed: 'BA3' is no ddr4 pin (did you mean 'BA0'?) (pins: CK, CS_n, ACT_n, RAS_n, CAS_n, WE_n, BG0, BG1, "
            "BA0, BA1, A0-A13, A17, CKE, DQS0.., RDQS..)");
  // A probed pin must be in the capture (this one has only the six above).
  d.probes = {"x16", {"CK", "CS_n", "ACT_n", "RAS_n", "CAS_n", "WE_n"}};
  got = decode_with(capture, d);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message.rfind("the capture has no channel 'ACT_n' for ddr4 ACT_n", 0), 0u)
      << got.error().message;
}

TEST(ProbeSets, Lpddr4WithoutCa5DecodesEveryCommandAndMarksWhatCa5Carries) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr4, "random", 4000, 5);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = Standard::lpddr4;
  o.probed = {"CK", "CS", "CA0", "CA1", "CA2", "CA3", "CA4", "DQS0"};
  const Capture capture = synth_capture(*trace, o);
  DecodeOptions d{Standard::lpddr4, {}, 1e-6};
  d.probes.probed = o.probed;
  BusStatistics stats({Standard::lpddr4, 16});
  CommandCollector got;
  BusDecoder decoder(d, got);
  ASSERT_TRUE(capture.replay(decoder).ok());
  ASSERT_EQ(got.commands.size(), trace->size());
  for (std::size_t i = 0; i < trace->size(); ++i) {
    const Command &want = (*trace)[i], &have = got.commands[i];
    EXPECT_EQ(have.op, want.op) << i;
    if (want.op == Op::act || is_column(want.op)) {
      EXPECT_EQ(have.bank, want.bank) << i;  // BA0-BA2 on CA0-CA2
    }
    if (is_column(want.op)) {
      EXPECT_EQ(have.unknown, kUnknownColumn | kUnknownAutoPrecharge | kUnknownBurst) << i;
    }
    if (want.op == Op::act) {
      EXPECT_EQ(have.unknown, kUnknownRow) << i;
    }
  }
  const ProbeCoverage& cov = decoder.timing().coverage;
  EXPECT_EQ(unknown_because(cov, Figure::reads), "");
  EXPECT_EQ(unknown_because(cov, Figure::bytes), "CA5 not probed");
  EXPECT_EQ(unknown_because(cov, Figure::row_buffer), "CA5 not probed");
  // Without CA2 READ-1 and MRW-1 look alike (L H ? L L).
  d.probes.probed = {"CK", "CS", "CA0", "CA1", "CA3", "CA4", "CA5"};
  o.probed = d.probes.probed;
  CommandCollector partial;
  BusDecoder partial_decoder(d, partial);
  ASSERT_TRUE(synth_capture(*trace, o).replay(partial_decoder).ok());
  EXPECT_TRUE(std::none_of(partial.commands.begin(), partial.commands.end(), [](const Command& c) { return c.op == Op::rd; }));
  EXPECT_TRUE(std::any_of(partial.commands.begin(), partial.commands.end(), [](const Command& c) { return c.op == Op::act; }));
  const ProbeCoverage& without_ca2 = partial_decoder.timing().coverage;
  EXPECT_NE(std::find(without_ca2.ambiguous_names.begin(), without_ca2.ambiguous_names.end(), "READ-1/MRW-1"),
            without_ca2.ambiguous_names.end())
      << fmt::format("{}", fmt::join(without_ca2.ambiguous_names, " "));
  EXPECT_EQ(unknown_because(without_ca2, Figure::reads), "CA2 not probed");
}

}  // namespace
}  // namespace harness::ddr

namespace harness::ddr {
namespace {

TEST(ProbeSets, AnUnprobedPinIsNotReadAsLow) {
  // Without RAS_n, NOP (H ? H H) is still the only row with CAS_n and WE_n
  // high: read as low, its RAS_n would make it the unknown H L H H.
  Result<std::vector<Command>> trace = generate_traffic(Standard::ddr4, "mixed", 8000, 5, 4, false, 2);
  ASSERT_TRUE(trace.ok());
  const auto nops = std::count_if(trace->begin(), trace->end(), [](const Command& c) { return c.op == Op::nop; });
  ASSERT_GT(nops, 0);
  SynthOptions o;
  o.standard = Standard::ddr4;
  o.organisation = "x16";
  o.probed = {"CK", "CS_n", "ACT_n", "CAS_n", "WE_n", "BG0", "BA0", "BA1", "A10", "A12"};
  CaptureCollector collect;
  ASSERT_TRUE(synthesize(*trace, o, collect).ok());
  DecodeOptions d{Standard::ddr4, {}, 1e-6};
  d.probes = {"x16", o.probed};
  CommandCollector got;
  BusDecoder decoder(d, got);
  ASSERT_TRUE(collect.capture().replay(decoder).ok());
  EXPECT_EQ(std::count_if(got.commands.begin(), got.commands.end(), [](const Command& c) { return c.op == Op::nop; }),
            nops);
  EXPECT_EQ(std::count_if(got.commands.begin(), got.commands.end(), [](const Command& c) { return c.op == Op::act; }),
            std::count_if(trace->begin(), trace->end(), [](const Command& c) { return c.op == Op::act; }));
}

}  // namespace
}  // namespace harness::ddr

namespace harness::ddr {
namespace {

TEST(ProbeSets, Lpddr5WithoutCa6DecodesReadsWritesAndActivatesButNotPrechargeFromRefresh) {
  // CA6 at the rising edge is the only pin between PRE (L L L H H H H) and
  // REF (L L L H H H L), MRW-1 and MRR, SRE and SRX, PDE and NOP; RD, WR and
  // ACT are told by CA0-CA5.
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr5, "random", 6000, 9);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = Standard::lpddr5;
  o.probed = {"CK", "CS", "CA0", "CA1", "CA2", "CA3", "CA4", "CA5", "DQS0"};
  CaptureCollector collect;
  ASSERT_TRUE(synthesize(*trace, o, collect).ok());
  DecodeOptions d{Standard::lpddr5, {}, 1e-6};
  d.probes.probed = o.probed;
  CommandCollector got;
  BusDecoder decoder(d, got);
  ASSERT_TRUE(collect.capture().replay(decoder).ok());
  auto count = [](const std::vector<Command>& v, Op op) {
    return std::count_if(v.begin(), v.end(), [&](const Command& c) { return c.op == op; });
  };
  for (Op op : {Op::act, Op::rd, Op::wr}) EXPECT_EQ(count(got.commands, op), count(*trace, op)) << op_name(op);
  EXPECT_EQ(count(got.commands, Op::pre), 0);
  EXPECT_EQ(count(got.commands, Op::unknown), count(*trace, Op::pre) + count(*trace, Op::ref));
  const ProbeCoverage& cov = decoder.timing().coverage;
  EXPECT_EQ(unknown_because(cov, Figure::reads), "");
  EXPECT_EQ(unknown_because(cov, Figure::bytes), "");  // RD16/RD32 differ in CA2
  EXPECT_EQ(unknown_because(cov, Figure::row_buffer), "CA6 not probed");
  EXPECT_EQ(unknown_because(cov, Figure::refreshes), "CA6 not probed");
}

// Two threads (the bus sampled on the caller's, commands and statistics on
// a second one) decode exactly as one: the same commands, bus timing, strobe
// estimate and statistics, for captures long enough to span many batches,
// fed in large and in odd-sized pieces.
struct Decoded {
  std::vector<Command> commands;
  BusTiming timing;
  BusSummary summary;
  std::optional<StageSeconds> stages;
};

Decoded decode_on(const Capture& capture, DecodeOptions d, bool two_threads, std::size_t piece) {
  d.two_threads = two_threads;
  struct Both : CommandSink {
    explicit Both(const BusModel& m) : statistics(m) {}
    void on_commands(std::span<const Command> c) override {
      collected.on_commands(c);
      statistics.on_commands(c);
    }
    CommandCollector collected;
    BusStatistics statistics;
  } sink([&] {
    BusModel m;
    m.standard = d.standard;
    return m;
  }());
  BusDecoder decoder(d, sink);
  Status s = capture.replay(decoder, piece);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return {sink.collected.commands, decoder.timing(), sink.statistics.finish(decoder.timing()), decoder.stage_seconds()};
}

TEST(DecoderThreads, TwoThreadsDecodeExactlyAsOne) {
  struct Case {
    Standard standard;
    std::string pattern;
    bool cke;
    unsigned ranks;
    std::vector<std::string> probed;
    bool bank_groups;
  };
  const std::vector<Case> cases = {
      {Standard::lpddr4, "mixed", true, 1, {}, false},
      {Standard::lpddr4, "stream", false, 1, {}, false},
      {Standard::ddr4, "mixed", true, 2, {}, false},
      {Standard::lpddr5, "random", false, 1, {}, true},
      {Standard::lpddr4, "random", false, 1, {"CK", "CS", "CA0", "CA1", "CA2", "CA3", "DQS0"}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("{} {}", standard_name(c.standard), c.pattern));
    Result<std::vector<Command>> trace = generate_traffic(c.standard, c.pattern, 200000, 5, 4, c.cke);
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    if (c.ranks > 1) trace = spread_over_two_ranks(*trace);
    SynthOptions o;
    o.standard = c.standard;
    o.cke = c.cke;
    o.ranks = c.ranks;
    o.dqs_channels = 2;
    o.dqs_jitter = 1;
    o.dqs_glitches = 0.02;
    o.probed = c.probed;
    o.clock_stops = {{trace->at(3000).cycle + 5, 30}};
    const Capture capture = synth_capture(*trace, o);
    DecodeOptions d;
    d.standard = c.standard;
    d.bank_groups = c.bank_groups;
    if (!c.probed.empty()) d.probes.probed = c.probed;
    const Decoded one = decode_on(capture, d, false, std::size_t{1} << 20);
    ASSERT_GT(one.commands.size(), 16384u);  // a command is a group at least: more than one batch handed over
    EXPECT_FALSE(one.stages);
    for (std::size_t piece : {std::size_t{1} << 20, std::size_t{4093}}) {
      const Decoded two = decode_on(capture, d, true, piece);
      expect_same(one.commands, two.commands);
      EXPECT_EQ(two.timing.cycles, one.timing.cycles);
      EXPECT_EQ(two.timing.tck, one.timing.tck);
      EXPECT_EQ(two.timing.clock_stops, one.timing.clock_stops);
      EXPECT_EQ(two.timing.strobes.toggles, one.timing.strobes.toggles);
      EXPECT_EQ(two.timing.dqs_timeline, one.timing.dqs_timeline);
      EXPECT_EQ(two.summary.command_counts, one.summary.command_counts);
      EXPECT_EQ(two.summary.row_hits, one.summary.row_hits);
      EXPECT_EQ(two.summary.row_conflicts, one.summary.row_conflicts);
      EXPECT_EQ(two.summary.transaction_bytes, one.summary.transaction_bytes);
      EXPECT_EQ(two.summary.read_interval_ps.counts, one.summary.read_interval_ps.counts);
      EXPECT_EQ(two.summary.read_interval_sample, one.summary.read_interval_sample);
      EXPECT_EQ(two.summary.dq_active_ratio_commands, one.summary.dq_active_ratio_commands);
      EXPECT_EQ(two.summary.dq_active_ratio, one.summary.dq_active_ratio);
      ASSERT_TRUE(two.stages);
      EXPECT_GT(two.stages->sampling, 0);
      EXPECT_GT(two.stages->commands, 0);
    }
  }
}

// The usual wiring (CA pins on consecutive channels) has a path of its own
// (the assembler reads the words from the edge groups); a bus wired out of
// order takes the general one. Both decode the same commands, with CKE
// changes between them, in pieces that split command words.
TEST(Decoder, ABusWiredOutOfOrderDecodesAsInOrder) {
  for (Standard standard : {Standard::lpddr4, Standard::lpddr5}) {
    SCOPED_TRACE(std::string(standard_name(standard)));
    const bool cke = standard == Standard::lpddr4;
    Result<std::vector<Command>> trace = generate_traffic(standard, "mixed", 20000, 11, 4, cke);
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    SynthOptions o;
    o.standard = standard;
    o.cke = cke;
    const Capture in_order = synth_capture(*trace, o);
    // CA2 moved to the last channel (and the last channel to CA2's place).
    Capture out_of_order = in_order;
    std::vector<std::string>& names = out_of_order.header.channels;
    const auto ca2 = static_cast<unsigned>(std::find(names.begin(), names.end(), "CA2") - names.begin());
    const auto last = static_cast<unsigned>(names.size() - 1);
    ASSERT_LT(ca2, last);
    std::swap(names[ca2], names[last]);
    const unsigned unit = out_of_order.header.unitsize;
    for (std::size_t i = 0; i < out_of_order.sample_count(); ++i) {
      std::uint64_t v = 0;
      std::memcpy(&v, &out_of_order.data[i * unit], unit);
      const std::uint64_t a = (v >> ca2) & 1, b = (v >> last) & 1;
      v = (v & ~((std::uint64_t{1} << ca2) | (std::uint64_t{1} << last))) | (a << last) | (b << ca2);
      std::memcpy(&out_of_order.data[i * unit], &v, unit);
    }
    DecodeOptions d;
    d.standard = standard;
    for (std::size_t piece : {std::size_t{1} << 20, std::size_t{4093}}) {
      const Decoded usual = decode_on(in_order, d, false, piece);
      const Decoded general = decode_on(out_of_order, d, false, piece);
      expect_same(*trace, usual.commands);
      expect_same(usual.commands, general.commands);
    }
  }
}

// An error while sampling stops the second thread too, and is the same error.
TEST(DecoderThreads, AnErrorWhileSamplingIsReturnedAsOnOneThread) {
  Result<std::vector<Command>> trace = generate_traffic(Standard::lpddr5, "random", 2000, 3);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = Standard::lpddr5;
  o.samples_per_clock = 4;  // undersampled: refused once the clock period is known
  const Capture capture = synth_capture(*trace, o);
  for (bool two : {false, true}) {
    CommandCollector got;
    DecodeOptions d;
    d.standard = Standard::lpddr5;
    d.two_threads = two;
    BusDecoder decoder(d, got);
    Status s = capture.replay(decoder, 997);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("capture undersampled"), std::string::npos) << s.error().message;
  }
}

}  // namespace
}  // namespace harness::ddr
