// libFuzzer target: the state-listing parser and the command decoder fed
// from it must return an error, never crash.
#include <string_view>

#include "harness/ddr/decoder.h"
#include "probes/capture/state_listing.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto listing = harness::parse_state_listing(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
  if (!listing) return 0;
  for (auto standard : {harness::ddr::Standard::ddr4, harness::ddr::Standard::lpddr4, harness::ddr::Standard::lpddr5}) {
    harness::ddr::CommandCollector commands;
    (void)harness::ddr::decode_state_listing(*listing, {standard, {}, 1e-6}, commands);
  }
  return 0;
}
