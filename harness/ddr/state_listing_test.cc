// State-mode input: a listing of per-edge states (what a protocol analyzer
// exports) decodes to the same commands as the timing capture it was
// sampled from, directly and after conversion to a timing capture.
#include <gtest/gtest.h>

#include "harness/ddr/decoder.h"
#include "harness/ddr/synth.h"
#include "probes/capture/state_listing.h"

namespace harness::ddr {
namespace {

// Samples a timing capture at its CK edges, as a state-mode analyzer would.
StateListing sample_at_edges(const Capture& cap, bool both_edges) {
  StateListing l;
  const unsigned ck = *cap.header.find("CK");
  for (unsigned i = 0; i < cap.header.channels.size(); ++i)
    if (i != ck) l.channels.push_back(cap.header.channels[i]);
  auto without_ck = [&](std::uint64_t v) {
    std::uint64_t low = v & ((std::uint64_t{1} << ck) - 1), high = v >> (ck + 1);
    return low | (high << ck);
  };
  for (std::uint64_t i = 1; i < cap.sample_count(); ++i) {
    bool now = cap.sample(i) >> ck & 1, before = cap.sample(i - 1) >> ck & 1;
    if (now == before || (!now && !both_edges)) continue;
    l.rows.push_back({i / cap.header.samplerate, now, without_ck(cap.sample(i))});
  }
  return l;
}

class StateListingRoundTrip : public ::testing::TestWithParam<Standard> {};

TEST_P(StateListingRoundTrip, DecodesLikeTheTimingCapture) {
  const Standard standard = GetParam();
  const bool cke = standard != Standard::lpddr5;
  Result<std::vector<Command>> trace = generate_traffic(standard, "mixed", 3000, 21, 4, cke);
  ASSERT_TRUE(trace.ok());
  SynthOptions o;
  o.standard = standard;
  o.cke = cke;
  o.samples_per_clock = 8;
  o.clock_stops = {{trace->at(20).cycle + 5, 30}};
  CaptureCollector synth;
  ASSERT_TRUE(synthesize(*trace, o, synth).ok());
  StateListing listing = sample_at_edges(synth.capture(), standard == Standard::lpddr5);
  // Through text, as a file would be.
  Result<StateListing> parsed = parse_state_listing(format_state_listing(listing), "x.txt");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  CommandCollector direct;
  Result<BusTiming> t = decode_state_listing(*parsed, {standard, {}, 1e-6}, direct);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(direct.commands.size(), trace->size());
  EXPECT_TRUE(direct.commands == *trace);
  EXPECT_NEAR(t->tck, o.tck, o.tck * 1e-6);
  ASSERT_EQ(t->clock_stops.size(), 1u);
  EXPECT_EQ(t->clock_stops[0].after_cycle, trace->at(20).cycle + 5);
  // Rendered back to a timing capture (what `capture convert` writes).
  CaptureCollector rendered;
  ASSERT_TRUE(render_state_listing(*parsed, 8, rendered).ok());
  CommandCollector again;
  BusDecoder decoder({standard, {}, 1e-6}, again);
  Status s = rendered.capture().replay(decoder);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(again.commands == *trace);
}

INSTANTIATE_TEST_SUITE_P(AllStandards, StateListingRoundTrip,
                         ::testing::Values(Standard::ddr4, Standard::lpddr4, Standard::lpddr5),
                         [](const auto& info) { return std::string(standard_name(info.param)); });

}  // namespace
}  // namespace harness::ddr
