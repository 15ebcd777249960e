// libFuzzer target: the Saleae binary reader (v0/v1) must return an error,
// never crash. The input is split in two channel files at its first byte.
#include <string>

#include "probes/capture/capture.h"
#include "probes/capture/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t cut = std::min<std::size_t>(data[0] * 8, bytes.size());
  harness::CaptureSummary sink;
  harness::ReadOptions options;
  options.samplerate = 1e6;  // bound the rendered length
  std::vector<harness::SaleaeBinaryFile> files = {{"digital_0", "digital_0.bin", bytes.substr(0, cut)},
                                                  {"digital_1", "digital_1.bin", bytes.substr(cut)}};
  (void)harness::read_saleae_binary(files, options, sink);
  return 0;
}
