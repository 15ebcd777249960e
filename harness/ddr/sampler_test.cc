// The sampler works on 64-sample bit masks with SIMD paths; these tests hold
// it to a plain per-sample reading of the same capture, for every chunking.
#include "harness/ddr/sampler.h"

#include <gtest/gtest.h>

#include "harness/ddr/synth.h"

namespace harness::ddr {
namespace {

// Per-sample reference: rising CK edges; an edge is DQS-active when a strobe
// rose in (previous edge, this edge]; the first edge starts no cycle.
struct Reference {
  std::uint64_t cycles = 0, active = 0;
  std::vector<std::uint32_t> per_window;
  std::vector<std::uint64_t> command_samples;  // rising edges with CS active
};

Reference read_by_sample(const Capture& c, const BusLayout& l, bool cs_active_high, std::uint64_t window) {
  Reference r;
  r.per_window.assign((c.sample_count() + window - 1) / window, 0);
  bool toggled = false, have_rise = false;
  for (std::uint64_t i = 1; i < c.sample_count(); ++i) {
    const std::uint64_t now = c.sample(i), before = c.sample(i - 1);
    if (now & ~before & l.dqs_mask) toggled = true;
    if ((now >> l.ck & 1) && !(before >> l.ck & 1)) {
      ++r.cycles;
      if (have_rise && toggled) {
        ++r.active;
        ++r.per_window[i / window];
      }
      if (((now >> l.chip_selects[0]) & 1) == (cs_active_high ? 1u : 0u)) r.command_samples.push_back(i);
      have_rise = true;
      toggled = false;
    }
  }
  return r;
}

Capture synthesized(Standard standard, unsigned spc, unsigned dqs, std::uint64_t stop_cycles = 30) {
  Result<std::vector<Command>> trace = generate_traffic(standard, "random", 3000, 11);
  EXPECT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = standard;
  o.samples_per_clock = spc;
  o.dqs_channels = dqs;
  o.jitter = 1;
  o.clock_stops = {{trace->at(20).cycle + 7, stop_cycles}};
  CaptureCollector collector;
  EXPECT_TRUE(synthesize(*trace, o, collector).ok());
  return collector.capture();
}

void expect_matches_reference(const Capture& c, Standard standard, std::size_t chunk, std::uint64_t window,
                              std::uint64_t merged_window = 0) {
  Result<BusLayout> layout = make_layout(standard, c.header.channels, {});
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const Reference want = read_by_sample(c, *layout, bus_format(standard).chip_select_active_high,
                                        merged_window ? merged_window : window);
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
  EXPECT_EQ(got.dqs_active_cycles, want.active);
  EXPECT_EQ(got.window_samples, merged_window ? merged_window : window);
  EXPECT_EQ(got.dqs_active_per_window, want.per_window);
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
