// libFuzzer target: the direct .sr reader (ZIP container, metadata, deflate)
// must return an error, never crash or read out of bounds, on any bytes.
#include <cstdint>
#include <string_view>

#include "probes/capture/capture.h"
#include "probes/capture/srzip_reader.h"
#include "tests/fuzz/bounded_sink.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness::MemoryByteSource source(std::string_view(reinterpret_cast<const char*>(data), size));
  harness::CaptureSummary sink;
  // Small blocks: more buffer boundaries per input.
  harness::SrzipOptions options;
  options.read_block = 4096;
  options.sink_block = 4096;
  // Overlapping entries and declared sizes past these are refused before
  // inflating.
  options.limits = harness::fuzz_limits();
  options.jobs = 2;  // the threaded path: the same checks, blocks handed over between threads
  (void)harness::read_srzip(source, "fuzz.sr", sink, options);
  return 0;
}
