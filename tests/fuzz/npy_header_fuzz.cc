// libFuzzer target: an .npy file must parse or give an error, never crash;
// one whose header matches its size must stream every value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "probes/tensor/npy.h"
#include "probes/tensor/tensor_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace harness::tensor;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  harness::Result<NpyHeader> h = parse_npy_header(bytes, "fuzz.npy");
  if (!h) return 0;
  const std::uint64_t item = dtype_size(h->dtype);
  if (h->count > (size - h->header_bytes) / item || h->header_bytes + h->count * item != size) return 0;
  TensorInfo t;
  t.origin = t.file = "fuzz.npy";
  t.dtype = h->dtype;
  t.big_endian = h->big_endian;
  t.shape = h->shape;
  t.count = h->count;
  t.data_offset = h->header_bytes;
  harness::Result<std::unique_ptr<TensorStream>> s = open_tensor_bytes(t, bytes);
  if (!s) return 0;
  std::vector<double> out(257);
  for (;;) {
    harness::Result<std::size_t> n = (*s)->read(out.data(), out.size());
    if (!n || *n == 0) break;
  }
  return 0;
}
