// libFuzzer target: a per-layer profile (CSV, or JSON when the first byte is
// odd) must parse or give an error, never crash, and a parsed one must analyse.
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/levels/layer_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = (data[0] & 1) ? "fuzz.json" : "fuzz.csv";
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  harness::Result<harness::LayerProfile> p = harness::parse_layer_profile(text, path);
  if (!p) return 0;
  harness::ProfileCeilings c;
  c.peak = 4e12;
  c.bandwidth = 20e9;
  harness::Analysis a;
  harness::analyse_layer_profile(*p, harness::LayerProfileConfig{}, c, harness::Provenance::measured, a);
  return 0;
}
