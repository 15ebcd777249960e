// libFuzzer target: the project's own per-layer profile (CSV, or JSON when
// the first byte is odd) must parse or give an error, never crash, and a
// parsed one must analyse. The other formats have targets of their own
// (profile_<format>_fuzz.cc).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/profile_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  harness::fuzz_profile((data[0] & 1) ? "json" : "csv", data + 1, size - 1);
  return 0;
}
