// libFuzzer target: an .npz archive must list its entries or give an error,
// never crash or read out of bounds; every listed entry must stream (stored
// or inflated, CRC checked) or fail with an error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/read_npz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  harness::read_npz_through(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
