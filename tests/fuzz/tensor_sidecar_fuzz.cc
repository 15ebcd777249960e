// libFuzzer target: a tensor sidecar (JSON) must parse or give an error,
// never crash; its quantization must check against its shape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "probes/tensor/quantization.h"
#include "probes/tensor/sidecar.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace harness::tensor;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  harness::Result<Sidecar> s = parse_sidecar(text, "dir/fuzz.json");
  if (s && s->quant && s->shape) (void)check_quantization(*s->quant, *s->shape, "dir/fuzz.json");
  harness::Result<std::optional<Quantization>> q = parse_quantization_json(text, "fuzz");
  (void)q;
  return 0;
}
