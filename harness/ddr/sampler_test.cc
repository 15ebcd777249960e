// The sampler and the strobe estimate work on 64-sample bit masks with SIMD
// paths; these tests hold them to a plain per-sample reading of the same
// capture, for every chunking.
#include "harness/ddr/sampler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include <gtest/gtest.h>

#include "harness/ddr/synth.h"

namespace harness::ddr {
namespace {

// Per-sample reference of the sampler: rising CK edges, command cycles, and
// the strobe estimate as docs/parts/ddr.md defines it, toggle by toggle on
// the whole capture (no frames, no lookahead limit): glitch filter, bursts,
// each burst's toggles rounded down to even, the timeline by position. The
// strobe's period is the clock's here (synthesized strobes toggle once per
// tCK).
struct Reference {
  std::uint64_t cycles = 0;
  double toggles = 0, bursts = 0;
  std::uint64_t glitches = 0;
  std::vector<double> per_window;              // active tCK per window, mean over the strobes
  std::vector<std::uint64_t> command_samples;  // rising edges with CS active
};

void reference_strobe(const Capture& c, unsigned channel, double period, std::uint64_t window, unsigned strobes,
                      Reference& r) {
  std::vector<std::uint64_t> t;  // toggles; the level before sample 0 is low
  std::uint64_t before = 0;
  for (std::uint64_t i = 0; i < c.sample_count(); ++i) {
    const std::uint64_t now = c.sample(i) >> channel & 1;
    if (now != before) t.push_back(i);
    before = now;
  }
  const auto width = std::clamp<std::uint64_t>(std::llround(period / 4), 2, 32);
  const auto half = std::max<std::uint64_t>(1, std::llround(period / 2));
  const auto gap = std::max<std::uint64_t>(2, std::llround(period));
  const double inf = 1e300;
  std::vector<std::uint64_t> kept;
  std::vector<bool> dropped(t.size(), false);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (dropped[i]) continue;
    if (i + 1 < t.size() && t[i + 1] - t[i] < width) {
      const double a = kept.empty() ? inf : static_cast<double>(t[i] - kept.back());
      const double b = i + 2 < t.size() ? static_cast<double>(t[i + 2] - t[i + 1]) : inf;
      const double flank = std::min(a, b);
      if (!(flank >= static_cast<double>(half) && flank < static_cast<double>(gap))) {
        ++r.glitches;
        dropped[i + 1] = true;
        continue;
      }
    }
    kept.push_back(t[i]);
  }
  auto add = [&](std::uint64_t pos, double v) { r.per_window[pos / window] += v / strobes / 2; };
  std::size_t start = 0;
  for (std::size_t i = 0; i <= kept.size(); ++i) {
    if (i < kept.size() && (i == 0 || kept[i] - kept[i - 1] < gap)) continue;
    if (i == start) continue;
    const std::size_t n = i - start, even = n & ~std::size_t{1};
    r.toggles += static_cast<double>(even) / strobes;
    if (even) r.bursts += 1.0 / strobes;
    for (std::size_t k = start; k < i; ++k) add(kept[k], 1);
    if (n != even) add(kept[start], -1.0);
    start = i;
  }
}

Reference read_by_sample(const Capture& c, const BusLayout& l, bool cs_active_high, std::uint64_t window,
                         double period) {
  Reference r;
  r.per_window.assign((c.sample_count() + window - 1) / window, 0);
  for (std::uint64_t i = 1; i < c.sample_count(); ++i) {
    const std::uint64_t now = c.sample(i), before = c.sample(i - 1);
    if ((now >> l.ck & 1) && !(before >> l.ck & 1)) {
      ++r.cycles;
      if (((now >> l.chip_selects[0]) & 1) == (cs_active_high ? 1u : 0u)) r.command_samples.push_back(i);
    }
  }
  const auto strobes = static_cast<unsigned>(std::popcount(l.dqs_mask));
  for (unsigned ch = 0; ch < 64; ++ch)
    if (l.dqs_mask >> ch & 1) reference_strobe(c, ch, period, window, strobes, r);
  return r;
}

Capture synthesized(Standard standard, unsigned spc, unsigned dqs, std::uint64_t stop_cycles = 30,
                    bool impaired = false) {
  Result<std::vector<Command>> trace = generate_traffic(standard, "random", 3000, 11);
  EXPECT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = standard;
  o.samples_per_clock = spc;
  o.dqs_channels = dqs;
  o.jitter = 1;
  if (impaired) {  // every strobe on its own: the estimate leaves its lockstep path
    o.dqs_jitter = 1;
    o.dqs_duty = 40;
    o.dqs_glitches = 0.05;
    o.dqs_park_high = true;
  }
  o.clock_stops = {{trace->at(20).cycle + 7, stop_cycles}};
  CaptureCollector collector;
  EXPECT_TRUE(synthesize(*trace, o, collector).ok());
  return collector.capture();
}

void expect_matches_reference(const Capture& c, Standard standard, std::size_t chunk, std::uint64_t window,
                              std::uint64_t merged_window = 0) {
  Result<BusLayout> layout = make_layout(standard, c.header.channels, {});
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const double spc = c.header.samplerate * 10e-9;  // the synthesizer tCK is 10 ns
  const Reference want = read_by_sample(c, *layout, bus_format(standard).chip_select_active_high,
                                        merged_window ? merged_window : window, spc);
  Sampler sampler(*layout, c.header.samplerate, window);
  std::vector<EdgeGroup> groups;
  const unsigned u = c.header.unitsize;
  for (std::uint64_t at = 0; at < c.sample_count(); at += chunk) {
    const std::size_t n = std::min<std::uint64_t>(chunk, c.sample_count() - at);
    ASSERT_TRUE(sampler.feed(c.data.data() + at * u, n, u, groups).ok());
  }
  ASSERT_TRUE(sampler.finish().ok());
  const SamplerStats& got = sampler.stats();
  EXPECT_EQ(got.cycles, want.cycles);
  if (layout->dqs_mask) {
    EXPECT_EQ(got.strobes.pulses_per_tck, 1);
    EXPECT_EQ(got.strobes.toggles, want.toggles);
    EXPECT_EQ(got.strobes.bursts, want.bursts);
    EXPECT_EQ(got.strobes.glitches, want.glitches);
    EXPECT_EQ(got.strobes.window_samples, merged_window ? merged_window : window);
    ASSERT_EQ(got.strobes.active_tck_per_window.size(), want.per_window.size());
    for (std::size_t w = 0; w < want.per_window.size(); ++w)
      EXPECT_NEAR(got.strobes.active_tck_per_window[w], std::max(0.0, want.per_window[w]), 1e-9) << "window " << w;
  }
  EXPECT_EQ(got.stops.size(), 1u);
  // Every command cycle the reference sees starts a group, except LPDDR4's
  // second cycles, which the sampler consumes as the word's second half.
  std::vector<std::uint64_t> starts;
  for (const EdgeGroup& g : groups) starts.push_back(g.sample);
  for (std::uint64_t s : starts)
    EXPECT_TRUE(std::binary_search(want.command_samples.begin(), want.command_samples.end(), s)) << s;
  if (standard != Standard::lpddr4) {
    EXPECT_EQ(starts, want.command_samples);
  }
}

TEST(Sampler, MatchesPerSampleReadingForAnyChunking) {
  for (Standard standard : {Standard::ddr4, Standard::lpddr4, Standard::lpddr5}) {
    const Capture c = synthesized(standard, 8, 2);
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{4096}, std::size_t{1000}, std::size_t{37}})
      for (std::uint64_t window : {std::uint64_t{16}, std::uint64_t{200}, std::uint64_t{4096}}) {
        SCOPED_TRACE(std::string(standard_name(standard)) + " chunk " + std::to_string(chunk) + " window " +
                     std::to_string(window));
        expect_matches_reference(c, standard, chunk, window);
      }
  }
}

TEST(Sampler, MatchesPerSampleReadingOfImpairedStrobes) {
  for (Standard standard : {Standard::ddr4, Standard::lpddr4, Standard::lpddr5}) {
    const Capture c = synthesized(standard, 8, 2, 30, true);
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{1000}, std::size_t{37}}) {
      SCOPED_TRACE(std::string(standard_name(standard)) + " chunk " + std::to_string(chunk));
      expect_matches_reference(c, standard, chunk, 200);
    }
  }
}

// Strobes sampled alike are counted as one until their levels differ: a
// second strobe that is the first's complement (the same toggles, other
// levels), that parts from it for a stretch mid-capture, or only before the
// period is known, is still counted on its own.
TEST(Sampler, MatchesPerSampleReadingOfStrobesThatPartFromEachOther) {
  const Capture alike = synthesized(Standard::lpddr4, 8, 2);
  const std::optional<unsigned> dqs1 = alike.header.find("DQS1");
  ASSERT_TRUE(dqs1);
  const std::uint64_t n = alike.sample_count();
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> flipped = {{0, n}, {n / 3, n / 3 + 5000}, {0, 1500}};
  for (const auto& [from, to] : flipped) {
    Capture c = alike;
    for (std::uint64_t i = from; i < to; ++i) c.data[i * c.header.unitsize + *dqs1 / 8] ^= 1 << (*dqs1 % 8);
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{1000}, std::size_t{37}}) {
      SCOPED_TRACE("DQS1 inverted from " + std::to_string(from) + " to " + std::to_string(to) + ", chunk " +
                   std::to_string(chunk));
      expect_matches_reference(c, Standard::lpddr4, chunk, 200);
    }
  }
}

TEST(Sampler, MatchesPerSampleReadingAtFourSamplesPerClock) {
  // The tightest edge spacing the decoder accepts.
  const Capture c = synthesized(Standard::lpddr4, 4, 1);
  expect_matches_reference(c, Standard::lpddr4, 1 << 16, 100);
  expect_matches_reference(c, Standard::lpddr4, 63, 64);
}

TEST(Sampler, FindsAClockStopShorterThanABlock) {
  // One missing clock (two periods between edges, 16 samples) inside a
  // 64-sample block: found by the in-block gap screen, not by block edges.
  for (unsigned spc : {4u, 8u}) {
    const Capture c = synthesized(Standard::lpddr4, spc, 1, 1);
    expect_matches_reference(c, Standard::lpddr4, 1 << 16, 100);
  }
}

// The shortest interval that is a stop: one sample more than 1.5 tCK (13
// samples at 8 per clock), wherever it falls against the 64-sample blocks;
// and the longest that is not (12 samples) counted as a period.
TEST(Sampler, AnIntervalJustOverOneAndAHalfPeriodsIsAStopWhereverItFalls) {
  const std::vector<std::string> channels = {"CK", "CS", "CA0", "CA1", "CA2", "CA3", "CA4", "CA5"};
  Result<BusLayout> layout = make_layout(Standard::lpddr4, channels, {});
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  for (unsigned odd : {12u, 13u})
    for (unsigned offset = 0; offset < 64; offset += 3) {
      SCOPED_TRACE("interval " + std::to_string(odd) + ", offset " + std::to_string(offset));
      std::vector<std::uint8_t> x(offset, 0);
      auto period = [&](unsigned samples) {
        for (unsigned i = 0; i < samples; ++i) x.push_back(i < 4 ? 1 : 0);  // CK high for 4 samples
      };
      for (int i = 0; i < 40; ++i) period(8);
      period(odd);
      for (int i = 0; i < 40; ++i) period(8);
      Sampler sampler(*layout, 800e6, 1000);
      std::vector<EdgeGroup> groups;
      ASSERT_TRUE(sampler.feed(x.data(), x.size(), 1, groups).ok());
      ASSERT_TRUE(sampler.finish().ok());
      EXPECT_EQ(sampler.stats().stops.size(), odd == 13 ? 1u : 0u);
      if (odd == 13 && sampler.stats().stops.size() == 1) {
        EXPECT_EQ(sampler.stats().stops[0].length, 13u);
        EXPECT_EQ(sampler.stats().stops[0].after_cycle, offset ? 40u : 39u);
      }
      EXPECT_EQ(sampler.stats().cycles, offset ? 81u : 80u);  // a capture starting high has no edge at sample 0
      // The mean period leaves the stop out: 8 samples; else the 12-sample
      // interval is one of the 80 (79 from sample 0) it averages.
      EXPECT_DOUBLE_EQ(sampler.stats().tck_samples, odd == 13 ? 8.0 : (offset ? 644.0 / 80 : 636.0 / 79));
    }
}

TEST(Sampler, MergesTimelineWindowsPastTheLimit) {
  // 24k one-sample windows are more than the 16384 kept: they merge into
  // two-sample windows, exactly as if asked for those.
  const Capture c = synthesized(Standard::lpddr4, 8, 1);
  ASSERT_GT(c.sample_count(), 16384u * 1);
  ASSERT_LT(c.sample_count(), 16384u * 2);
  expect_matches_reference(c, Standard::lpddr4, 1 << 16, 1, 2);
  expect_matches_reference(c, Standard::lpddr4, 999, 1, 2);
}

TEST(Sampler, MatchesPerSampleReadingWithOneByteSamples) {
  // LPDDR4 without strobes: CK, CS, CA0-5 fit one byte (the scalar path).
  const Capture c = synthesized(Standard::lpddr4, 8, 0);
  ASSERT_EQ(c.header.unitsize, 1u);
  expect_matches_reference(c, Standard::lpddr4, 1 << 16, 100);
  expect_matches_reference(c, Standard::lpddr4, 65, 64);
}

}  // namespace
}  // namespace harness::ddr
