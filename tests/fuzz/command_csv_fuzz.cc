// libFuzzer target: the command-list CSV reader (synthesizer traces) must
// return an error, never crash.
#include <string_view>

#include "harness/ddr/export.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)harness::ddr::parse_command_csv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
  return 0;
}
