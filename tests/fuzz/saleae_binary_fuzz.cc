// libFuzzer target: the Saleae binary reader (v0/v1) must return an error,
// never crash. The input's first two bytes say where the rest is cut into two
// channel files (15 bits, little endian) and, in the top bit, whether a
// sample rate is given (else the files' own or an inferred one is used).
#include <string>

#include "probes/capture/capture.h"
#include "probes/capture/readers.h"
#include "tests/fuzz/bounded_sink.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::size_t cut = std::min<std::size_t>(data[0] | (data[1] & 0x7f) << 8, bytes.size());
  harness::BoundedSink sink;
  harness::ReadOptions options;
  options.limits = harness::fuzz_limits();
  if (data[1] & 0x80) options.samplerate = 1e6;
  std::vector<harness::SaleaeBinaryFile> files = {{"digital_0", "digital_0.bin", bytes.substr(0, cut)},
                                                  {"digital_1", "digital_1.bin", bytes.substr(cut)}};
  (void)harness::read_saleae_binary(files, options, sink);
  return 0;
}
