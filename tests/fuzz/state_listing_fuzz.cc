// libFuzzer target: the state-listing parser, its rendering as a timing
// capture and the command decoder fed from it must return an error, never
// crash.
#include <string_view>

#include "harness/ddr/decoder.h"
#include "probes/capture/state_listing.h"
#include "tests/fuzz/bounded_sink.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto listing = harness::parse_state_listing(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
  if (!listing) return 0;
  harness::BoundedSink sink;
  (void)harness::render_state_listing(*listing, 8, sink, "fuzz.txt", harness::fuzz_limits());
  for (auto standard : {harness::ddr::Standard::ddr4, harness::ddr::Standard::lpddr4, harness::ddr::Standard::lpddr5}) {
    harness::ddr::CommandCollector commands;
    (void)harness::ddr::decode_state_listing(*listing, {standard, {}, 1e-6}, commands);
  }
  return 0;
}
