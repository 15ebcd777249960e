// libFuzzer target: the .sr reader (libsigrok's session loading) must return
// an error, never crash, on any file content.
#include <cstdio>
#include <string>

#include <unistd.h>

#include "probes/capture/capture.h"
#include "probes/capture/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/harness-sr-fuzz-" + std::to_string(getpid()) + ".sr";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  harness::CaptureSummary sink;
  (void)harness::read_sr(path, sink);
  return 0;
}
