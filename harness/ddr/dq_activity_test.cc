// The two DQ-activity estimates (DQS envelopes, command timing) held to
// each other on synthesized LPDDR4/LPDDR5 captures, with and without
// toggling DQS preambles.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/ddr/metrics.h"
#include "harness/ddr/synth.h"

namespace harness::ddr {
namespace {

// Sparse reads to one open row: each burst either seamless after the
// previous one or after an idle gap longer than `min_gap` cycles.
std::vector<Command> sparse_reads(Standard s, unsigned burst, unsigned min_gap, std::uint64_t cycles,
                                  std::uint64_t seed) {
  std::vector<Command> out;
  Command act;
  act.op = Op::act;
  act.cycle = 4;
  act.bank = 1;
  act.row = 5;
  out.push_back(act);
  const unsigned step = burst_cycles(s, burst, 4);
  const unsigned occupancy = s == Standard::lpddr4 ? 4 : 1;
  std::uint64_t at = 16, state = seed;
  while (at < cycles) {
    Command rd;
    rd.op = Op::rd;
    rd.cycle = at;
    rd.bank = 1;
    rd.column = 0;
    rd.burst = static_cast<std::uint16_t>(burst);
    out.push_back(rd);
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const bool seamless = (state >> 33) % 3 == 0;
    at += std::max<std::uint64_t>(step, occupancy) + (seamless ? 0 : min_gap + 1 + (state >> 40) % 100);
  }
  return out;
}

struct Estimates {
  double dqs = 0, commands = 0;
  std::uint64_t preamble_cycles = 0;
};

Estimates estimate(const std::vector<Command>& trace, Standard s, unsigned preamble_rendered, unsigned preamble_declared) {
  SynthOptions o;
  o.standard = s;
  o.samples_per_clock = s == Standard::lpddr5 ? 16 : 8;
  o.dqs_preamble = preamble_rendered;
  o.jitter = 1;
  CaptureCollector collect;
  Status synthesized = synthesize(trace, o, collect);
  EXPECT_TRUE(synthesized.ok()) << synthesized.error().message;
  DecodeOptions d{s, {}, 1e-6};
  d.dqs_preamble = preamble_declared;
  BusStatistics stats({s, 16});
  BusDecoder decoder(d, stats);
  Status decoded = collect.capture().replay(decoder);
  EXPECT_TRUE(decoded.ok()) << decoded.error().message;
  BusSummary summary = stats.finish(decoder.timing());
  EXPECT_TRUE(summary.dq_active_ratio_dqs.has_value());
  return {summary.dq_active_ratio_dqs.value_or(-1), summary.dq_active_ratio_commands,
          decoder.timing().dqs_preamble_cycles};
}

TEST(DqActivity, DqsAndCommandEstimatesAgreeWithinOnePercentWithAndWithoutPreambles) {
  for (Standard s : {Standard::lpddr4, Standard::lpddr5}) {
    for (unsigned burst : {16u, 32u}) {
      for (unsigned preamble : {0u, 1u, 2u}) {
        SCOPED_TRACE(fmt::format("{} BL{} preamble {}", standard_name(s), burst, preamble));
        const std::vector<Command> trace = sparse_reads(s, burst, preamble, 40000, 7);
        const Estimates e = estimate(trace, s, preamble, preamble);
        EXPECT_GT(e.commands, 0.02);
        EXPECT_LT(e.commands, 0.5);  // sparse
        EXPECT_LE(std::abs(e.dqs - e.commands), 0.01 * e.commands) << e.dqs << " vs " << e.commands;
        if (preamble == 0) {
          EXPECT_EQ(e.preamble_cycles, 0u);
        }
        if (preamble > 0) {
          EXPECT_GT(e.preamble_cycles, 100u);
          // Not declared, the preamble counts as data: outside the 1 % agreement.
          const Estimates undeclared = estimate(trace, s, preamble, 0);
          EXPECT_GT(undeclared.dqs - undeclared.commands, 0.01 * undeclared.commands)
              << undeclared.dqs << " vs " << undeclared.commands;
        }
      }
    }
  }
}

TEST(DqActivity, EstimatesAgreeOnGeneratedTrafficWithoutPreamble) {
  // Reads and writes interleaved: their data windows arrive out of order
  // (RL > WL), the command estimate takes their exact union.
  for (Standard s : {Standard::ddr4, Standard::lpddr4, Standard::lpddr5}) {
    for (const char* pattern : {"random", "stream"}) {
      SCOPED_TRACE(fmt::format("{} {}", standard_name(s), pattern));
      Result<std::vector<Command>> trace = generate_traffic(s, pattern, 20000, 3);
      ASSERT_TRUE(trace.ok());
      const Estimates e = estimate(*trace, s, 0, 0);
      EXPECT_LE(std::abs(e.dqs - e.commands), 0.01 * e.commands) << e.dqs << " vs " << e.commands;
    }
  }
}

}  // namespace
}  // namespace harness::ddr
