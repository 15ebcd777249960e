// libFuzzer target: any bytes given to the scenario parser give a Scenario or
// an error with a message, never a crash, a hang or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  harness::Result<harness::Scenario> s = harness::parse_scenario(text, "fuzz.toml");
  if (!s && s.error().message.empty()) __builtin_trap();
  return 0;
}
