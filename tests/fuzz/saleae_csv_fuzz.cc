// libFuzzer target: the Saleae CSV reader must return an error, never crash.
#include <string_view>

#include "probes/capture/capture.h"
#include "probes/capture/readers.h"
#include "tests/fuzz/bounded_sink.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness::BoundedSink sink;
  harness::ReadOptions options;
  options.limits = harness::fuzz_limits();
  (void)harness::read_saleae_csv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv", options,
                                 sink);
  return 0;
}
