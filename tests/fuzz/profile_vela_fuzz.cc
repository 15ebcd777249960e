// libFuzzer target: the vela profile reader must read or refuse any
// bytes with an error, never crash; what reads must analyse.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/profile_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness::fuzz_profile("vela", data, size);
  return 0;
}
